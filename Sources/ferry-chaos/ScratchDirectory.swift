import Foundation

/// A run's scratch directory at its end: kept on request, removed after a pass; after a failure only its bulky data
/// goes (it can be made again from the seed), and the logs, which a replay is compared with, stay.
struct ScratchDirectory {
    let work: String
    let logs: String

    /// Keeps or clears the directory; `bulky` are the data folders below it a failed run removes; `say` reports.
    func settle(keep: Bool, passed: Bool, bulky: [String], say: (String) -> Void) {
        let fm = FileManager.default
        if keep {
            say("kept \(work)")
        } else if passed {
            try? fm.removeItem(atPath: work)
        } else {
            for folder in bulky { try? fm.removeItem(atPath: work + "/" + folder) }
            say("logs kept in \(logs)")
        }
    }
}
