// Shims for the parts of FFmpeg's headers that Swift cannot import: function-like and
// compound-literal macros (AVERROR, AVERROR_EOF, AV_NOPTS_VALUE, AV_TIME_BASE_Q, av_err2str),
// fixed-size arrays that arrive as tuples (AVFrame.data, AVFrame.linesize), and the display
// matrix, field order and HDR metadata reads, whose APIs moved between FFmpeg 5.1 and 6.1; and
// glibc's mallopt, for the memory FFmpeg's buffers take (Swift's Glibc module leaves it out).
//
// Only Sources/Thumbnails/Internals calls these; everything is `static inline` so the module
// needs no compiled C sources.
#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// MARK: - Error codes

/// AVERROR(e): an FFmpeg error code for a POSIX errno value.
static inline int cffmpeg_error_from_errno(int posix_error) { return AVERROR(posix_error); }
/// AVERROR_EOF: the end of the input (or of a drained decoder).
static inline int cffmpeg_error_end_of_file(void) { return AVERROR_EOF; }
/// AVERROR(EAGAIN): "feed more input" or "take output first"; not a failure.
static inline int cffmpeg_error_try_again(void) { return AVERROR(EAGAIN); }
/// AVERROR_INVALIDDATA: the input is not what its format claims (or no format matched).
static inline int cffmpeg_error_invalid_data(void) { return AVERROR_INVALIDDATA; }
/// AVERROR_STREAM_NOT_FOUND: no stream of the requested kind.
static inline int cffmpeg_error_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
/// AVERROR_DECODER_NOT_FOUND: a stream of the requested kind exists, but no decoder for it.
static inline int cffmpeg_error_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
/// AVERROR_ENCODER_NOT_FOUND.
static inline int cffmpeg_error_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
/// AVERROR_DEMUXER_NOT_FOUND.
static inline int cffmpeg_error_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
/// AVERROR_PATCHWELCOME: a feature FFmpeg does not implement.
static inline int cffmpeg_error_patch_welcome(void) { return AVERROR_PATCHWELCOME; }
/// AVERROR_EXIT: an interrupt callback asked to stop.
static inline int cffmpeg_error_exit(void) { return AVERROR_EXIT; }

/// av_err2str without the compound literal: writes FFmpeg's message for `code` into `buffer`
/// (always NUL-terminated when `size` > 0). Returns 0 when FFmpeg knows the code, a negative
/// value when it wrote a generic "Error number N occurred" instead.
static inline int cffmpeg_error_string(int code, char *buffer, size_t size) {
    return av_strerror(code, buffer, size);
}

// MARK: - Time

/// AV_NOPTS_VALUE: "no timestamp".
static inline int64_t cffmpeg_no_timestamp(void) { return AV_NOPTS_VALUE; }
/// AV_TIME_BASE_Q: the time base of AVFormatContext.duration and start_time (1/1000000).
static inline AVRational cffmpeg_time_base_q(void) { return AV_TIME_BASE_Q; }

// MARK: - Streams

/// Copies the stream's display matrix (nine 32-bit values, row-major, 16.16 fixed point except the
/// last column's 2.30) into `matrix`. Returns 1 when the stream has one, 0 when it has none.
///
/// FFmpeg 5.1 keeps the matrix in the stream's side data (av_stream_get_side_data); 6.1
/// (libavformat 60.15.100) moved it to codecpar->coded_side_data and deprecated the old call,
/// which 7.0 removed.
static inline int cffmpeg_stream_display_matrix(const AVStream *stream, int32_t *matrix) {
    const uint8_t *data = NULL;
    size_t size = 0;
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *side_data = av_packet_side_data_get(
        stream->codecpar->coded_side_data, stream->codecpar->nb_coded_side_data,
        AV_PKT_DATA_DISPLAYMATRIX);
    if (side_data != NULL) {
        data = side_data->data;
        size = side_data->size;
    }
#else
    data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
#endif
    if (data == NULL || size < 9 * sizeof(int32_t)) {
        return 0;
    }
    memcpy(matrix, data, 9 * sizeof(int32_t));
    return 1;
}

/// av_display_rotation_get for a matrix held by the caller: the counterclockwise angle in
/// [-180, 180], NaN for a matrix that scales an axis to zero.
static inline double cffmpeg_display_rotation(const int32_t *matrix) {
    return av_display_rotation_get(matrix);
}

// MARK: - Frames

/// AVFrame.data as a pointer to its AV_NUM_DATA_POINTERS plane pointers (Swift sees a tuple).
static inline uint8_t **cffmpeg_frame_planes(AVFrame *frame) { return frame->data; }
/// AVFrame.linesize as a pointer to its AV_NUM_DATA_POINTERS strides (Swift sees a tuple).
static inline int *cffmpeg_frame_strides(AVFrame *frame) { return frame->linesize; }
/// Points plane `index` of a frame at memory the caller owns (an encoder input that is not
/// reference-counted: the encoder copies it).
static inline void cffmpeg_frame_set_plane(AVFrame *frame, int index, uint8_t *data, int stride) {
    frame->data[index] = data;
    frame->linesize[index] = stride;
}
/// The frame's duration in its stream's time base, 0 when unknown. FFmpeg 6.0 (libavutil 58)
/// renamed pkt_duration to duration and deprecated the old field.
static inline int64_t cffmpeg_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}
/// Whether the decoder marked the frame as damaged: AV_FRAME_FLAG_CORRUPT, or any
/// decode_error_flags (invalid bitstream, missing reference, concealment, lost slices).
static inline int cffmpeg_frame_is_damaged(const AVFrame *frame) {
    return (frame->flags & AV_FRAME_FLAG_CORRUPT) != 0 || frame->decode_error_flags != 0;
}
/// Whether the frame is a keyframe. FFmpeg 6.1 moved key_frame into flags (AV_FRAME_FLAG_KEY).
static inline int cffmpeg_frame_is_keyframe(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 29, 100)
    return (frame->flags & AV_FRAME_FLAG_KEY) != 0;
#else
    return frame->key_frame;
#endif
}

/// How the frame's lines were captured: 0 progressive, 1 interlaced with the top field first,
/// 2 interlaced with the bottom field first. FFmpeg 6.1 moved interlaced_frame and
/// top_field_first into flags.
static inline int cffmpeg_frame_field_order(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 29, 100)
    if ((frame->flags & AV_FRAME_FLAG_INTERLACED) == 0) {
        return 0;
    }
    return (frame->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST) != 0 ? 1 : 2;
#else
    if (!frame->interlaced_frame) {
        return 0;
    }
    return frame->top_field_first ? 1 : 2;
#endif
}
/// Marks the frame progressive (a field copied out of an interlaced frame into a frame of its own).
static inline void cffmpeg_frame_set_progressive(AVFrame *frame) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(58, 29, 100)
    frame->flags &= ~(AV_FRAME_FLAG_INTERLACED | AV_FRAME_FLAG_TOP_FIELD_FIRST);
#else
    frame->interlaced_frame = 0;
    frame->top_field_first = 0;
#endif
}

/// The brightest light the frame's HDR metadata promises, in cd/m2: the content light level's
/// MaxCLL when present, else the mastering display's peak; 0 when the frame carries neither.
static inline double cffmpeg_frame_peak_luminance(const AVFrame *frame) {
    const AVFrameSideData *light = av_frame_get_side_data(frame, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
    if (light != NULL && light->size >= sizeof(AVContentLightMetadata)) {
        const AVContentLightMetadata *metadata = (const AVContentLightMetadata *)light->data;
        if (metadata->MaxCLL > 0) {
            return metadata->MaxCLL;
        }
    }
    const AVFrameSideData *mastering = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
    if (mastering != NULL && mastering->size >= sizeof(AVMasteringDisplayMetadata)) {
        const AVMasteringDisplayMetadata *metadata = (const AVMasteringDisplayMetadata *)mastering->data;
        if (metadata->has_luminance && metadata->max_luminance.den > 0 && metadata->max_luminance.num > 0) {
            return av_q2d(metadata->max_luminance);
        }
    }
    return 0;
}

// MARK: - Input and output

/// AVSEEK_SIZE: the `whence` bit with which an AVIOContext asks its seek callback for the size.
static inline int cffmpeg_seek_size(void) { return AVSEEK_SIZE; }

/// The short name of the demuxer FFmpeg's probe picks for the first `size` bytes of a file named `filename` (NULL: by
/// the bytes alone), or NULL when none does, and in `score` how sure it is (AVPROBE_SCORE_MAX, 100: certain; 50: by
/// the name's extension alone). The bytes are copied into the zero-padded buffer (`AVPROBE_PADDING_SIZE`) the probe
/// functions require.
static inline const char *cffmpeg_probe_format_scored(const char *filename, const uint8_t *bytes, int size,
                                                      int *score) {
    *score = 0;
    if (size < 0) return NULL;
    uint8_t *buffer = av_mallocz((size_t)size + AVPROBE_PADDING_SIZE);
    if (buffer == NULL) return NULL;
    if (size > 0) memcpy(buffer, bytes, (size_t)size);
    AVProbeData data = {.filename = filename != NULL ? filename : "", .buf = buffer, .buf_size = size,
                        .mime_type = NULL};
    const AVInputFormat *format = av_probe_input_format3(&data, 1, score);
    av_free(buffer);
    return format != NULL ? format->name : NULL;
}

/// The short name of the demuxer FFmpeg's probe picks for the first `size` bytes of a file named `filename`, or NULL
/// when none does: what a refused input was, for its error.
static inline const char *cffmpeg_probe_format_name(const char *filename, const uint8_t *bytes, int size) {
    int score = 0;
    return cffmpeg_probe_format_scored(filename, bytes, size, &score);
}

// MARK: - The C allocator

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Tells glibc's malloc to serve allocations below `mmap_threshold` bytes from its heap (not
/// from a mapping of their own, unmapped when freed) and to give memory back to the kernel only
/// when more than `trim_threshold` bytes are free at the heap's top: memory a cover frees stays
/// for the next cover. FFmpeg's frame buffers and decoder tables are zero-filled megabytes, so
/// otherwise each cover maps them anew and faults every page in. Returns 1 when glibc took both
/// settings, 0 when it refused one, or on another C library (which has no `mallopt`; nothing is
/// changed there). Swift's Glibc module does not import <malloc.h>.
static inline int cffmpeg_keep_freed_memory(int mmap_threshold, int trim_threshold) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}

#endif
