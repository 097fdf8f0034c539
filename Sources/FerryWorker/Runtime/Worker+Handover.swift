import FerryStore
import Foundation

extension Worker {
    /// The outcome batcher's claims: when outcomes free account slots, it claims in their transaction for the free
    /// slots this worker has, on the same terms as the claim loop (a lease held, writes accepted, not draining, one
    /// claim at a time), and the jobs start at once.
    func claimHandover() -> ClaimHandover {
        // Weakly: the batcher the hand-over is given to belongs to the worker.
        return ClaimHandover(
            begin: { [weak self] finished in
                guard let self else { return nil }
                let free = configuration.concurrency - running.count(excluding: finished)
                guard free > 0, holdsLease, writes.accepting, claimGate.begin() else { return nil }
                // Counted again under the turn: a claim that ended just before may have filled the slots.
                let limit = configuration.concurrency - running.count(excluding: finished)
                guard limit > 0 else {
                    claimGate.end()
                    return nil
                }
                return ClaimHandover.Request(
                    worker: configuration.name, queues: configuration.queues, limit: limit, generation: lease.generation)
            },
            end: { [weak self] claimed, generation in
                guard let self else { return }
                for job in claimed { start(job, generation: generation) }
                // The claim loop came by while this claim ran: it looks again now.
                if claimGate.end() { wakeup.notify() }
            })
    }
}
