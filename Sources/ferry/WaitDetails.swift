import FerryStore
import Foundation

/// What `ferry wait --progress` shows beside the counts: the transfers in flight and, while none runs, why.
struct WaitDetails {
    var inFlight = InFlightFiles()
    var stall = WaitStall()
    /// Running jobs read at most: the display lists a few and counts the rest.
    static let runningRead = 50

    /// Reads the running jobs (live bytes included) while some run, else looks for why none does. A failed read
    /// leaves the last figures: the wait's own reads report a lost connection.
    mutating func read(_ target: Wait.Target, snapshot: WaitSnapshot, store: FerryStore, at now: ContinuousClock.Instant) async {
        if snapshot.running > 0 {
            let filter: FerryStore.JobFilter =
                switch target {
                case .batch(let name): .matching(batch: name, state: "running", search: nil)
                case .job(let id): .job(id)
                }
            if let rows = try? await store.reads.jobStatus(filter, limit: Self.runningRead) { inFlight.update(rows, at: now) }
        } else {
            inFlight.update([], at: now)
        }
        await stall.check(target, snapshot: snapshot, store: store, at: now)
    }
}
