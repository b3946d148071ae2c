import Foundation
import Locking

/// What a finished subprocess printed and how it ended.
package struct SubprocessResult: Sendable {
    /// Its exit status, or the number of the signal that ended it (Foundation's `terminationStatus`).
    package var status: Int32
    package var output: Data
    package var errors: Data

    package var outputText: String { String(decoding: output, as: UTF8.self) }
    package var errorText: String { String(decoding: errors, as: UTF8.self) }
}

/// Runs `executable` with `arguments` (in `directory` when given), feeds it `input`, and waits for it; a process
/// still running after `limit` seconds is killed (`SIGKILL`, status 9), so a hang fails the test that waits for it
/// instead of stopping the run.
///
/// Standard output is read on the calling thread and standard error on a thread of its own, so a large output on
/// either cannot block the process. The second reader and the watchdog are `Thread`s, never dispatch queues, whose
/// pool is bounded. The limit counts from the start of the process: a `.timeLimit` trait counts from the start of
/// the test, which under ThreadSanitizer can wait a minute for a thread of Swift's two-thread cooperative pool.
package func runSubprocess(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil, input: Data = Data(), limit: Double = 300
) throws -> SubprocessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    let errors = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = standardInput
    try process.run()
    let ended = DispatchSemaphore(value: 0)
    let pid = process.processIdentifier
    Thread {
        // `isRunning` turns false when Foundation reaps the process, after which its pid may be another's: a process
        // that ended is not signalled (short of the instant between the reaping and that flag).
        if ended.wait(timeout: .now() + limit) == .timedOut, process.isRunning { kill(pid, SIGKILL) }
    }.start()
    let errorReader = PipeReader(errors.fileHandleForReading)
    standardInput.fileHandleForWriting.write(input)
    try standardInput.fileHandleForWriting.close()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errorReader.wait()
    process.waitUntilExit()
    ended.signal()
    return SubprocessResult(status: process.terminationStatus, output: outputData, errors: errorData)
}

/// Runs the command `tool` found on PATH (through /usr/bin/env) with `arguments`; see
/// ``runSubprocess(_:_:in:input:)``.
package func runTool(_ tool: String, _ arguments: [String], input: Data = Data()) throws -> SubprocessResult {
    try runSubprocess(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments, input: input)
}

/// Reads a file handle to its end on a thread of its own.
package final class PipeReader: Sendable {
    private let data = LockedValue<Data?>(nil)
    private let done = DispatchSemaphore(value: 0)

    package init(_ handle: FileHandle) {
        Thread { [self] in
            let bytes = handle.readDataToEndOfFile()
            data.withLock { $0 = bytes }
            done.signal()
        }.start()
    }

    /// Everything the handle delivered, once it reached its end.
    package func wait() -> Data {
        done.wait()
        return data.withLock { $0 ?? Data() }
    }
}
