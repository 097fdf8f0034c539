import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The partition phase's tools: packet filter rules in the run's own network namespace (a true black hole: no
/// answer, no reset) and a file system filled to the last block.
enum PartitionControl {
    /// Why this process cannot run the partition phase, nil when it can. It must run as root inside a network
    /// namespace of its own (scripts/chaos.sh --partition makes one): its DROP rules must never reach the host's.
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "needs root (iptables); run it through scripts/chaos.sh --partition as root" }
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")) ?? ""
        let host = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/1/ns/net")) ?? ""
        guard !own.isEmpty, own != host else {
            return "must run inside a network namespace of its own (scripts/chaos.sh --partition makes one), never on the host's"
        }
        guard shell("iptables -L INPUT -n") == 0 else { return "needs iptables (Debian package iptables)" }
        return nil
    }()

    /// Drops every TCP packet to `port` arriving here: connections to it go silent, new ones never connect.
    static func blackHole(port: Int) throws {
        guard shell("iptables -A INPUT -p tcp --dport \(port) -j DROP") == 0 else { throw ChaosError("iptables could not black-hole port \(port)") }
    }

    /// Removes the rule `blackHole(port:)` added (every copy of it).
    static func heal(port: Int) {
        while shell("iptables -D INPUT -p tcp --dport \(port) -j DROP") == 0 {}
    }

    /// The URL of the database of `tcpURL` through the Unix-domain socket scripts/pg.sh puts in `directory`, and
    /// the TCP port.
    static func socketURL(_ tcpURL: String, directory: String) throws -> (String, Int) {
        guard let components = URLComponents(string: tcpURL), let port = components.port else {
            throw ChaosError("the database URL names no port: \(tcpURL)")
        }
        let host = directory.replacingOccurrences(of: "/", with: "%2F")
        return ("postgresql://\(components.user ?? "postgres")@\(components.path)?host=\(host)&port=\(port)", port)
    }

    /// Takes every free block of the file system of `directory` with one file; returns its path and size.
    static func fill(_ directory: String) throws -> (String, Int64) {
        var stats = statvfs()
        guard statvfs(directory, &stats) == 0 else { throw ChaosError("statvfs(\(directory)) failed: errno \(errno)") }
        let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        let path = directory + "/.chaos-fill"
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        guard fd >= 0 else { throw ChaosError("cannot create \(path): errno \(errno)") }
        defer { close(fd) }
        // Most of it at once, then what the file system still gives in smaller pieces: to the last block.
        var size: Int64 = 0
        var piece = max(Int64(1 << 20), free)
        while piece >= 4096 {
            if posix_fallocate(fd, off_t(size), off_t(piece)) == 0 { size += piece } else { piece /= 2 }
        }
        return (path, size)
    }

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        let raw = system("(\(command)) > /dev/null 2>&1")
        return raw == -1 ? -1 : (raw >> 8) & 0xFF
    }
}
