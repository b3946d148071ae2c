import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process started with arguments given as bytes (Foundation's `Process` takes `String`s, which
/// cannot hold a file name that is not UTF-8), its standard streams in files of a scratch folder.
final class RawProcess {
    let pid: pid_t
    private let folder: URL

    /// Starts `executable` with `arguments` (without `argv[0]`; paths in them absolute: it runs in
    /// this process's directory), in a process group of its own (so a test can kill it with every
    /// worker it started), `input` on its standard input, no signal blocked.
    init(_ executable: URL, _ arguments: [[UInt8]], input: [UInt8] = []) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("RawProcess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(input).write(to: folder.appendingPathComponent("stdin"))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, folder.appendingPathComponent("stdin").path, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, folder.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(
            &actions, 2, folder.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // As a shell starts it: no signal blocked, SIGINT and SIGTERM at their default action (a test runs on a
        // thread of Swift's pool, which blocks nearly every signal, and a spawned process inherits that mask).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var terminations = sigset_t()
        sigemptyset(&terminations)
        for number in [SIGINT, SIGTERM] { sigaddset(&terminations, number) }
        posix_spawnattr_setsigdefault(&attributes, &terminations)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] =
            ([Array(executable.path.utf8)] + arguments).map { bytes in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (offset, byte) in bytes.enumerated() { copy[offset] = CChar(bitPattern: byte) }
                copy[bytes.count] = 0
                return copy
            } + [nil]
        defer { for argument in argv { argument?.deallocate() } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        guard status == 0 else {
            struct SpawnFailed: Error { let code: Int32 }
            throw SpawnFailed(code: status)
        }
        self.pid = pid
    }

    /// Waits for the process and returns how it ended and what it printed; after `limit` seconds
    /// (a guard against a hang) its process group is killed (`SIGKILL`), so a process that never
    /// ends shows as status 137 instead of stopping the tests.
    func wait(killingAfter limit: Double = 120) throws -> BuiltBinary.Run {
        var status: Int32 = 0
        var usage = rusage()
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let ended = wait4(pid, &status, WNOHANG, &usage)
            if ended == pid || (ended < 0 && errno != EINTR) { break }
            if Date() > deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                break
            }
            usleep(5000)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return BuiltBinary.Run(
            status: exitStatus,
            standardOutput: String(
                decoding: try Data(contentsOf: folder.appendingPathComponent("stdout")), as: UTF8.self),
            standardError: String(
                decoding: try Data(contentsOf: folder.appendingPathComponent("stderr")), as: UTF8.self),
            minorPageFaults: usage.ru_minflt)
    }

    /// The processes whose parent is this one (its workers), from /proc.
    var children: [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry), let fields = Self.statFields(of: child) else { return nil }
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// Whether process `pid` exists and has not ended (its state is not zombie or dead).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let state = statFields(of: pid)?.first else { return false }
        return state != "Z" && state != "X"
    }

    /// The fields of /proc/PID/stat after the name: state, ppid, ... (the name may hold spaces, so the fields are
    /// read after its closing parenthesis); nil when there is no such process.
    private static func statFields(of pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}

extension BuiltBinary {
    /// Runs the binary with `arguments` given as bytes (paths in them absolute), and waits for it.
    func run(bytes arguments: [[UInt8]], input: [UInt8] = []) throws -> Run {
        try RawProcess(url, arguments, input: input).wait()
    }
}
