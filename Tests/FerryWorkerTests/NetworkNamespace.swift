import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Linux network namespace of a test's own, whose loopback can be turned into a true black hole: `iptables`
/// drops packets there, so no peer ever answers, acknowledges or resets. A user-space proxy cannot do that (its
/// kernel acknowledges what it does not forward), so only this shows that TCP keepalives and `tcp_user_timeout`
/// fire. Unix-domain sockets are not namespaced: the test itself can still reach a server inside through one.
final class NetworkNamespace: @unchecked Sendable {
    let name: String

    /// Why this machine cannot make one (not root, no `ip` or `iptables`, namespaces refused); nil when it can.
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "needs root to create network namespaces" }
        for tool in ["ip", "iptables"] where shell("command -v \(tool)").status != 0 {
            return "needs `\(tool)` (Debian packages iproute2 and iptables; scripts/install-deps.sh installs them)"
        }
        let probe = "ferry-probe-\(getpid())"
        let made = shell("ip netns add \(probe) && ip netns exec \(probe) iptables -L INPUT -n")
        _ = shell("ip netns del \(probe)")
        return made.status == 0 ? nil : "cannot make a network namespace with iptables here: \(made.output)"
    }()

    /// Whether black-hole tests can run here.
    static var isAvailable: Bool { unavailableReason == nil }

    /// Creates the namespace with its loopback up.
    init(label: String) throws {
        name = "ferry-\(label)-\(getpid())"
        _ = Self.shell("ip netns del \(name)")
        try Self.run("ip netns add \(name)")
        do {
            try Self.run("ip netns exec \(name) ip link set lo up")
        } catch {
            delete()
            throw error
        }
    }

    /// The words that run a command inside the namespace (`ip netns exec` execs in place, so the process id is
    /// the command's own).
    var launcher: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

    /// Runs `command` (a shell line) inside the namespace and answers its output.
    @discardableResult
    func run(_ command: String) throws -> String {
        try Self.run("ip netns exec \(name) /bin/bash -c \(Self.quoted(command))")
    }

    /// `run` off the cooperative pool, for commands that take seconds (starting a server).
    @discardableResult
    func runDetached(_ command: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try self.run(command) }) }
        }
    }

    /// Drops every TCP packet to `port` arriving on the namespace's interfaces: connections to it go silent.
    func blackHole(port: Int) throws {
        try run("iptables -A INPUT -p tcp --dport \(port) -j DROP")
    }

    /// Removes every rule: the silence ends.
    func heal() throws {
        try run("iptables -F")
    }

    /// Deletes the namespace (idempotent). Processes still inside it keep it alive until they end.
    func delete() {
        _ = Self.shell("ip netns del \(name)")
    }

    @discardableResult
    static func run(_ command: String) throws -> String {
        let result = shell(command)
        guard result.status == 0 else {
            throw NetworkNamespaceError(command: command, status: result.status, output: result.output)
        }
        return result.output
    }

    /// Runs a shell line with system(3) (which waits with waitpid, whatever the command leaves running), its output
    /// in a file: a server started by the command would hold a pipe open for ever.
    static func shell(_ command: String) -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("netns-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let raw = system("(\(command)) > \(quoted(output)) 2>&1 < /dev/null")
        let status = raw == -1 ? -1 : (raw >> 8) & 0xFF
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
