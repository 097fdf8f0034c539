/// At most `limit` holders at once, for async tasks (a counting semaphore that suspends instead of blocking).
///
/// Waiters are served in arrival order. A waiter that is cancelled still waits for its slot; holders must
/// release on every path.
actor AsyncSlots {
    let limit: Int
    private var used = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func acquire() async {
        if used < limit {
            used += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            used -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiters.removeFirst().resume()
        }
    }
}
