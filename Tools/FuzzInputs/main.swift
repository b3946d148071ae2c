import Foundation
import SeededRandom

// fuzz-inputs: seeded, reproducible inputs for Tools/mutate-canvas-thumb.sh and Tools/fuzz-sim.sh.
//
//   fuzz-inputs videos  --seed S --count N --out DIR FILE...   mutated copies of the files (bytes flipped, ranges
//                                                              overwritten, truncated, chunks duplicated or dropped,
//                                                              spliced with another file), named m-NNNNNN.<ext>
//   fuzz-inputs scripts --seed S --count N --out DIR FILE...   event scripts: half generated from the language's
//                                                              words (with odd arguments), half mutated copies of
//                                                              the files, named s-NNNNNN.script
//
// The same seed, count and files give the same bytes on every machine (SplitMix64, no system randomness). Each file
// is written with the mutations that made it in a side list, DIR/index.txt, so a finding can be explained.

struct Arguments {
    var mode = ""
    var seed: UInt64 = 1
    var count = 1000
    var output = ""
    var files: [String] = []

    init(_ arguments: [String]) {
        var rest = arguments[...]
        guard let mode = rest.popFirst(), mode == "videos" || mode == "scripts" else { Self.usage() }
        self.mode = mode
        while let argument = rest.popFirst() {
            switch argument {
            case "--seed":
                guard let value = rest.popFirst().flatMap({ UInt64($0) }) else { Self.usage() }
                seed = value
            case "--count":
                guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { Self.usage() }
                count = value
            case "--out":
                guard let value = rest.popFirst() else { Self.usage() }
                output = value
            default: files.append(argument)
            }
        }
        if output.isEmpty || files.isEmpty { Self.usage() }
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data("usage: fuzz-inputs videos|scripts --seed S --count N --out DIR FILE...\n".utf8))
        exit(2)
    }
}

/// A mutation of a byte array, described for the index.
func mutate(_ bytes: inout [UInt8], donor: [UInt8], using random: inout SplitMix64) -> String {
    func position(_ limit: Int) -> Int { limit <= 0 ? 0 : Int.random(in: 0..<limit, using: &random) }
    // Weighted so that most inputs keep their container's index (an MP4's `moov` sits at its end, and a cut or a
    // splice there mostly yields "moov atom not found") and reach the demuxer and decoder with damaged data.
    let roll = Int.random(in: 0..<100, using: &random)
    let kind = [30, 50, 58, 68, 78, 93].firstIndex { roll < $0 } ?? 6
    switch kind {
    case 0:
        let flips = Int.random(in: 1...16, using: &random)
        for _ in 0..<flips where !bytes.isEmpty { bytes[position(bytes.count)] ^= UInt8(1 << position(8)) }
        return "flip \(flips) bits"
    case 1:
        let start = position(bytes.count)
        let length = min(bytes.count - start, Int.random(in: 1...64, using: &random))
        for index in start..<(start + length) { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        return "overwrite \(length) bytes at \(start)"
    case 2:
        let length = position(bytes.count)
        bytes.removeSubrange(length...)
        return "truncate to \(length)"
    case 3:
        let start = position(bytes.count)
        let length = min(bytes.count - start, Int.random(in: 1...4096, using: &random))
        let chunk = bytes[start..<(start + length)]
        let at = position(bytes.count + 1)
        bytes.insert(contentsOf: chunk, at: at)
        return "duplicate \(length) bytes from \(start) at \(at)"
    case 4:
        let start = position(bytes.count)
        let length = min(bytes.count - start, Int.random(in: 1...4096, using: &random))
        bytes.removeSubrange(start..<(start + length))
        return "drop \(length) bytes at \(start)"
    case 5:
        // Interesting integers at a random place: sizes and counts in headers are where parsers break.
        let values: [UInt32] = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]
        let value = values[position(values.count)]
        let start = position(max(0, bytes.count - 3))
        for offset in 0..<min(4, bytes.count - start) {
            bytes[start + offset] = UInt8((value >> (24 - 8 * offset)) & 0xFF)
        }
        return "write \(value) at \(start)"
    default:
        let cut = position(bytes.count)
        let from = position(donor.count)
        bytes = Array(bytes[..<cut]) + donor[from...]
        return "splice at \(cut) with another file from \(from)"
    }
}

/// A random script in the event language. Two scripts in three use only valid forms (so they run to the end, with
/// odd but valid numbers and file names); the third may also have odd words, missing, extra or malformed arguments.
func generateScript(using random: inout SplitMix64) -> String {
    let odd = Int.random(in: 0..<3, using: &random) == 0
    let words = ["tap", "record", "stop", "cancel", "delete", "add", "remove", "scroll", "disappear", "appear"]
    let validNumbers = ["0", "1", "2", "3", "7", "-1", "+2", "99", "9223372036854775807", "-9223372036854775808"]
    let oddNumbers = ["99999999999999999999", "0x1", "1e3", "", "٣"]
    let validFiles = [
        "take.mov", "\"a b.mov\"", "\"q\\\"uote.mov\"", "dir/", "../x.mp4", "/abs/t.mov", "é.mov", "~/t.mov",
        "\"tab\t.mov\"", "\"semi;colon#.mov\"",
    ]
    let oddFiles = ["\"\"", "\"open", "a\"b", "\"x\"y", "\u{0}"]
    let numbers = odd ? validNumbers + oddNumbers : validNumbers
    let files = odd ? validFiles + oddFiles : validFiles
    let separators = ["\n", "; ", ";", "\r\n", " ;\n", "\n\n", " # comment\n", "\t;\t"]
    var script = ""
    for _ in 0..<Int.random(in: 0...40, using: &random) {
        let word = words.randomElement(using: &random)!
        script += odd && Int.random(in: 0..<20, using: &random) == 0 ? word.uppercased() : word
        switch word {
        case "tap", "delete", "remove", "scroll":
            if !odd || Int.random(in: 0..<12, using: &random) != 0 {
                script += " " + numbers.randomElement(using: &random)!
            }
        case "stop":
            if Int.random(in: 0..<2, using: &random) == 0 { script += " " + files.randomElement(using: &random)! }
        default:
            if odd && Int.random(in: 0..<20, using: &random) == 0 { script += " extra" }
        }
        script += separators.randomElement(using: &random)!
    }
    return script
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
let sources = arguments.files.map { path -> [UInt8] in
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("fuzz-inputs: cannot read \(path)\n".utf8))
        exit(2)
    }
    return Array(data)
}
let output = URL(fileURLWithPath: arguments.output, isDirectory: true)
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
var random = SplitMix64(seed: arguments.seed)
var index = ""
for number in 0..<arguments.count {
    let name: String
    var bytes: [UInt8]
    var notes: [String] = []
    let sourceIndex = number % sources.count
    if arguments.mode == "videos" {
        let ext = (arguments.files[sourceIndex] as NSString).pathExtension
        name = String(format: "m-%06d", number) + (ext.isEmpty ? "" : ".\(ext)")
        bytes = sources[sourceIndex]
        notes.append((arguments.files[sourceIndex] as NSString).lastPathComponent)
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            notes.append(
                mutate(&bytes, donor: sources[Int.random(in: 0..<sources.count, using: &random)], using: &random))
        }
    } else {
        name = String(format: "s-%06d.script", number)
        if number % 2 == 0 {
            bytes = Array(generateScript(using: &random).utf8)
            notes.append("generated")
        } else {
            bytes = sources[sourceIndex]
            notes.append((arguments.files[sourceIndex] as NSString).lastPathComponent)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                notes.append(
                    mutate(&bytes, donor: sources[Int.random(in: 0..<sources.count, using: &random)], using: &random))
            }
        }
    }
    try Data(bytes).write(to: output.appendingPathComponent(name))
    index += "\(name): \(notes.joined(separator: ", "))\n"
}
try Data(index.utf8).write(to: output.appendingPathComponent("index.txt"))
print("fuzz-inputs: wrote \(arguments.count) \(arguments.mode) into \(arguments.output) (seed \(arguments.seed))")
