/*
 * cover_floor: the floor for MultiCanvas's cover benchmarks. The fewest steps a C program on the
 * same FFmpeg libraries takes to write a cover: open, find the video stream, (seek), decode one
 * frame with one thread, scale to fit SIZE x SIZE (RGB24), encode PNG with libavcodec, write.
 *
 *   cover_floor INPUT OUTPUT.png [SIZE] [SECONDS] [LOOPS] [exact]
 *
 * SECONDS < 0 means the first frame. With LOOPS > 1 it repeats the whole pipeline (open to write)
 * in one process and prints the median milliseconds per cover on stdout (the warm figure).
 * "exact" decodes forward from the preceding keyframe to the first frame at or after SECONDS.
 * Built by the benchmark scripts: cc -O2 cover_floor.c $(pkg-config --cflags --libs libavformat
 * libavcodec libswscale libavutil) -o cover_floor
 */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what, int code) {
    char buf[128];
    av_strerror(code, buf, sizeof buf);
    fprintf(stderr, "cover_floor: %s: %s\n", what, buf);
    return 1;
}

static int cover(const char *in, const char *out, int size, double seconds, int exact) {
    AVFormatContext *fmt = NULL;
    int rc = avformat_open_input(&fmt, in, NULL, NULL);
    if (rc < 0) return fail("open", rc);
    if ((rc = avformat_find_stream_info(fmt, NULL)) < 0) return fail("stream info", rc);
    const AVCodec *codec = NULL;
    int si = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (si < 0) return fail("video stream", si);
    AVStream *st = fmt->streams[si];
    AVCodecContext *dec = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(dec, st->codecpar);
    dec->thread_count = 1;
    if ((rc = avcodec_open2(dec, codec, NULL)) < 0) return fail("decoder", rc);
    int64_t target = AV_NOPTS_VALUE;
    if (seconds >= 0) {
        target = (int64_t)(seconds / av_q2d(st->time_base));
        if (st->start_time != AV_NOPTS_VALUE) target += st->start_time;
        av_seek_frame(fmt, si, target, AVSEEK_FLAG_BACKWARD);
    }
    AVPacket *pkt = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int got = 0;
    while (!got) {
        rc = av_read_frame(fmt, pkt);
        if (rc < 0) { avcodec_send_packet(dec, NULL); }
        else if (pkt->stream_index != si) { av_packet_unref(pkt); continue; }
        else { avcodec_send_packet(dec, pkt); av_packet_unref(pkt); }
        while (avcodec_receive_frame(dec, frame) == 0) {
            if (exact && target != AV_NOPTS_VALUE && frame->best_effort_timestamp < target) continue;
            got = 1; break;
        }
        if (rc < 0 && !got) return fail("decode", rc);
    }
    /* Aspect fit into size x size, sample aspect ratio honoured. */
    double sar = (frame->sample_aspect_ratio.num > 0) ? av_q2d(frame->sample_aspect_ratio) : 1.0;
    double dw = frame->width * sar, dh = frame->height;
    double scale = size / (dw > dh ? dw : dh);
    int w = (int)(dw * scale + 0.5) & ~1, h = (int)(dh * scale + 0.5) & ~1;
    if (w < 2) w = 2;
    if (h < 2) h = 2;
    struct SwsContext *sws = sws_getContext(frame->width, frame->height, frame->format, w, h,
                                            AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    AVFrame *rgb = av_frame_alloc();
    rgb->format = AV_PIX_FMT_RGB24; rgb->width = w; rgb->height = h;
    av_frame_get_buffer(rgb, 0);
    sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, rgb->data, rgb->linesize);
    const AVCodec *png = avcodec_find_encoder(AV_CODEC_ID_PNG);
    AVCodecContext *enc = avcodec_alloc_context3(png);
    enc->width = w; enc->height = h; enc->pix_fmt = AV_PIX_FMT_RGB24; enc->time_base = (AVRational){1, 25};
    if ((rc = avcodec_open2(enc, png, NULL)) < 0) return fail("encoder", rc);
    avcodec_send_frame(enc, rgb);
    AVPacket *opkt = av_packet_alloc();
    if ((rc = avcodec_receive_packet(enc, opkt)) < 0) return fail("encode", rc);
    FILE *f = fopen(out, "wb");
    if (!f) { perror("cover_floor: write"); return 1; }
    fwrite(opkt->data, 1, opkt->size, f);
    fclose(f);
    av_packet_free(&opkt); avcodec_free_context(&enc); av_frame_free(&rgb); sws_freeContext(sws);
    av_frame_free(&frame); av_packet_free(&pkt); avcodec_free_context(&dec); avformat_close_input(&fmt);
    return 0;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: cover_floor INPUT OUTPUT [SIZE] [SECONDS] [LOOPS] [exact]\n"); return 2; }
    av_log_set_level(AV_LOG_QUIET);
    int size = argc > 3 ? atoi(argv[3]) : 320;
    double seconds = argc > 4 ? atof(argv[4]) : -1;
    int loops = argc > 5 ? atoi(argv[5]) : 1;
    int exact = argc > 6 && strcmp(argv[6], "exact") == 0;
    if (loops <= 1) return cover(argv[1], argv[2], size, seconds, exact);
    double *ms = malloc(sizeof(double) * loops);
    for (int i = 0; i < loops; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (cover(argv[1], argv[2], size, seconds, exact)) return 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        ms[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
    }
    qsort(ms, loops, sizeof(double), cmp);
    printf("%.3f\n", ms[loops / 2]);
    free(ms);
    return 0;
}
