import Foundation

/// A worker paused with SIGSTOP past its lease and resumed once others took its jobs over.
struct ZombieRecord: Sendable {
    struct HeldJob: Sendable {
        let jobID: UUID
        /// The zombie's claim: every event it tries to write carries this lease.
        let lease: Int64
        /// Whether a transfer was under way (an upload session, or a download with bytes on disk).
        let inFlight: Bool
    }

    let worker: String
    let slot: Int
    let held: [HeldJob]
    let pausedAt: Date
    var resumedAt: Date?
    /// Every held job had a newer claim (by another worker) before the zombie was resumed.
    var takenOver = false
    /// The zombie's log from its resumption on.
    var logPath: String
    var logOffset = 0
    /// Held jobs whose late write the zombie logged as refused (claim lost, or outcome not written).
    var refusalsLogged: Set<UUID> = []

    var pausedSeconds: Double { (resumedAt ?? pausedAt).timeIntervalSince(pausedAt) }
}
