import FerryCore

/// How far a hot standby's data is behind its primary, read on the standby itself (`FerryReads.standbyStatus()`).
public struct StandbyStatus: Sendable, Hashable {
    /// `now() - pg_last_xact_replay_timestamp()`: how old the newest commit replayed here is, in seconds (`nil`
    /// before the first replayed commit). While the primary commits, that is the replication lag; on an idle
    /// primary it grows with the idle time although nothing is missing (see `caughtUp`).
    public var replayLagSeconds: Double?
    /// Every WAL record received from the primary has been replayed (`pg_last_wal_receive_lsn() =
    /// pg_last_wal_replay_lsn()`): what a read sees is as new as what has arrived.
    public var caughtUp: Bool

    public init(replayLagSeconds: Double?, caughtUp: Bool) {
        self.replayLagSeconds = replayLagSeconds
        self.caughtUp = caughtUp
    }

    public var json: JSONValue {
        .object(["replay_lag_seconds": replayLagSeconds.map(JSONValue.double) ?? .null, "caught_up": .bool(caughtUp)])
    }

    /// One line for people: "hot standby: last replayed commit 0.4 s old, all received WAL replayed".
    public var summary: String {
        let age = replayLagSeconds.map { "last replayed commit \(String(format: "%.1f", $0)) s old" } ?? "no commit replayed yet"
        return "hot standby: \(age), " + (caughtUp ? "all received WAL replayed" : "still replaying received WAL")
    }
}
