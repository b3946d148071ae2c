// ThumbnailBenchmark: the Swift side of Tools/bench-thumbnails.sh. It does what
// Tools/Floor/cover_floor.c does, through the Thumbnails API: open, decode one cover, scale to fit
// SIZE x SIZE (RGB), encode PNG, write (atomically), repeated LOOPS times in one process; it prints
// the median milliseconds per cover (the warm figure), like the floor.
//
//   ThumbnailBenchmark INPUT OUTPUT.png [SIZE] [SECONDS] [LOOPS] [exact] [--probe] [--skip-dark] [--no-write] [--cpu]
//   ThumbnailBenchmark --cache-hits INPUT | --service-misses INPUT COUNT | --warm-list LIST OUTDIR ROUNDS   (see below)
//
// SECONDS < 0 means the first frame; otherwise keyframe mode at SECONDS, or the exact frame with
// "exact". --probe forces avformat_find_stream_info even when the header is complete (to measure
// what skipping it saves; it needs Thumbnails built with -DTHUMBNAILS_BENCHMARK_HOOKS, as
// Tools/bench-thumbnails.sh builds it); --skip-dark turns on CoverOptions.skipsDarkFrames; --no-write stops after
// the decoded, scaled cover (no PNG encoding, no file); --cpu measures the process's CPU time per cover instead of
// the wall clock (for the picture-shape ratios, which differ by less than other work on a shared machine moves the
// wall clock). Exit status 1 with the error's reason on stderr when a cover fails.
import CoverBatch
import Foundation
import Thumbnails

// `ThumbnailBenchmark --cache-hits INPUT`: microseconds per CoverCache hit (a stat of the file and
// a locked lookup), what a grid pays on every display.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--cache-hits" {
    let url = URL(filePath: CommandLine.arguments[2])
    let options = CoverOptions(maximumSize: PixelSize(width: 320, height: 320))
    let cache = CoverCache(capacity: 64 << 20)
    do {
        guard let key = cache.key(for: url, options: options) else {
            throw ThumbnailError(.fileNotFound, reason: url.path)
        }
        cache.insert(try CoverGenerator().makeCover(for: url, options: options), for: key)
    } catch {
        FileHandle.standardError.write(Data("ThumbnailBenchmark: \(error)\n".utf8))
        exit(1)
    }
    let lookups = 100_000
    let clock = ContinuousClock()
    var hits = 0
    let elapsed = clock.measure {
        for _ in 0..<lookups where cache.cover(for: url, options: options) != nil { hits += 1 }
    }
    guard hits == lookups else { exit(1) }
    let microseconds = (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
    print(String(format: "%.3f", microseconds / Double(lookups)))
    exit(0)
}

// `ThumbnailBenchmark --service-misses INPUT COUNT`: COUNT covers of INPUT (320x320, first frame)
// through `CoverService.cover(for:maximumSize:)`, each from a fresh service (so each one a cache
// miss: the key's `stat`, the decode); prints the median milliseconds per cover. Under
// `strace -f -e trace=%stat,%file` it shows the system calls a miss makes on the file's path.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--service-misses" {
    let url = URL(filePath: CommandLine.arguments[2])
    let count = max(1, Int(CommandLine.arguments[3]) ?? 1)
    let size = PixelSize(width: 320, height: 320)
    let clock = ContinuousClock()
    var milliseconds: [Double] = []
    for _ in 0..<count {
        let service = CoverService(options: CoverOptions(), maximumConcurrency: 1)
        let start = clock.now
        do {
            _ = try await service.cover(for: url, maximumSize: size)
        } catch {
            FileHandle.standardError.write(Data("ThumbnailBenchmark: \(error)\n".utf8))
            exit(1)
        }
        let elapsed = clock.now - start
        milliseconds.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
    }
    milliseconds.sort()
    print(String(format: "%.3f", milliseconds[count / 2]))
    exit(0)
}

// `ThumbnailBenchmark --warm-list LIST OUTDIR ROUNDS`: the warm in-process cover of a batch's own inputs. LIST holds
// one input path a line (Tools/bench-canvas-thumb.sh passes the batch's); each is covered as the batch does it
// (320x320 box, first frame, keyframe mode, PNG written, here to OUTDIR/N.png), one at a time on one thread. One
// untimed pass over the list warms the process and the page cache; then ROUNDS timed passes; prints the median of
// the passes' mean milliseconds per cover. The allocator keeps freed memory as canvas-thumb's does
// (CoverMemory.keepFreedMemory()); a sixth argument --default-allocator leaves glibc's defaults.
if CommandLine.arguments.count >= 5, CommandLine.arguments[1] == "--warm-list" {
    let paths =
        (try? String(contentsOfFile: CommandLine.arguments[2], encoding: .utf8))?
        .split(separator: "\n").map(String.init).filter { !$0.isEmpty } ?? []
    let folder = URL(filePath: CommandLine.arguments[3])
    let rounds = max(1, Int(CommandLine.arguments[4]) ?? 1)
    guard !paths.isEmpty else {
        FileHandle.standardError.write(Data("ThumbnailBenchmark: no inputs in \(CommandLine.arguments[2])\n".utf8))
        exit(2)
    }
    let options = CoverOptions(maximumSize: PixelSize(width: 320, height: 320))
    // The allocator as canvas-thumb and its workers set it (unless --default-allocator, for comparison), so the
    // ideal is the product's own warm cover.
    if !CommandLine.arguments.contains("--default-allocator") { CoverMemory.keepFreedMemory() }
    let generator = CoverGenerator()
    let clock = ContinuousClock()
    var means: [Double] = []
    for round in 0...rounds {
        let start = clock.now
        for (index, path) in paths.enumerated() {
            do throws(ThumbnailError) {
                let cover = try generator.makeCover(for: URL(filePath: path), options: options)
                try cover.write(to: folder.appending(path: "\(index).png"), as: .png)
            } catch {
                FileHandle.standardError.write(Data("ThumbnailBenchmark: \(error.reason)\n".utf8))
                exit(1)
            }
        }
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        if round > 0 { means.append(milliseconds / Double(paths.count)) }
    }
    means.sort()
    print(String(format: "%.3f", means[means.count / 2]))
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("--") }
let forcesProbe = CommandLine.arguments.contains("--probe")
let skipsDark = CommandLine.arguments.contains("--skip-dark")
let writes = !CommandLine.arguments.contains("--no-write")
let measuresCPU = CommandLine.arguments.contains("--cpu")
guard arguments.count >= 2 else {
    FileHandle.standardError.write(
        Data(
            ("usage: ThumbnailBenchmark INPUT OUTPUT [SIZE] [SECONDS] [LOOPS] [exact]"
                + " [--probe] [--skip-dark] [--no-write] [--cpu]\n").utf8))
    exit(2)
}
let values = Array(arguments)
let input = URL(filePath: values[0])
let output = URL(filePath: values[1])
let size = values.count > 2 ? Int(values[2]) ?? 320 : 320
let seconds = values.count > 3 ? Double(values[3]) ?? -1 : -1
let loops = values.count > 4 ? max(1, Int(values[4]) ?? 1) : 1
let exact = values.count > 5 && values[5] == "exact"

var options = CoverOptions(maximumSize: PixelSize(width: size, height: size), skipsDarkFrames: skipsDark)
if seconds >= 0 {
    options.time = .seconds(seconds)
}
if exact {
    options = options.exact()
}

/// Milliseconds of CPU time the process (all its threads) has used.
func processCPUMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

let generator = CoverGenerator()
let clock = ContinuousClock()
var milliseconds: [Double] = []
for _ in 0..<loops {
    let start = clock.now
    let startCPU = measuresCPU ? processCPUMilliseconds() : 0
    do throws(ThumbnailError) {
        #if THUMBNAILS_BENCHMARK_HOOKS
            let cover = try generator.makeCover(for: input, options: options, alwaysProbe: forcesProbe)
        #else
            if forcesProbe {
                throw ThumbnailError(
                    .invalidArgument, reason: "--probe needs a build with -Xswiftc -DTHUMBNAILS_BENCHMARK_HOOKS")
            }
            let cover = try generator.makeCover(for: input, options: options)
        #endif
        if writes {
            try cover.write(to: output, as: .png)
        }
    } catch {
        FileHandle.standardError.write(Data("ThumbnailBenchmark: \(error.reason)\n".utf8))
        exit(1)
    }
    let elapsed = clock.now - start
    milliseconds.append(
        measuresCPU
            ? processCPUMilliseconds() - startCPU
            : Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
}
if loops > 1 {
    milliseconds.sort()
    print(String(format: "%.3f", milliseconds[loops / 2]))
}
