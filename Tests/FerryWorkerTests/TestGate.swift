import Synchronization

/// A gate test handlers wait at until the test opens it; it counts who arrived.
final class TestGate: Sendable {
    private let opened = Atomic<Bool>(false)
    private let arrived = Atomic<Int>(0)

    /// Callers that reached the gate so far.
    var arrivals: Int { arrived.load(ordering: .acquiring) }

    func open() { opened.store(true, ordering: .releasing) }

    /// Counts the caller in, then waits until the gate is open.
    func pass() async {
        arrived.add(1, ordering: .acquiringAndReleasing)
        while !opened.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
