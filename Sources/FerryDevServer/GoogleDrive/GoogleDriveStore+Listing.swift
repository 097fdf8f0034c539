import FerryCore

/// `files.list`: items matching a query, in creation order, a page at a time.
extension GoogleDriveStore {
    /// One page of the items of `account` that `filter` matches, after the page token (the last sequence number of the
    /// page before); the token of the next page when there are more.
    func list(account: String, filter: GoogleQueryFilter, pageSize: Int, after: Int64?) -> (items: [GoogleDriveItem], next: String?) {
        state.withLock { state in
            state.stats.listPages += 1
            let rootID = state.accounts[account]
            let candidates: [GoogleDriveItem]
            if let parent = filter.parent {
                let id = parent == "root" ? rootID ?? parent : parent
                candidates = (state.children[id] ?? []).compactMap { state.items[$0] }
            } else {
                candidates = Array(state.items.values)
            }
            let matching = candidates
                .filter { $0.account == account && !$0.parents.isEmpty && $0.sequence > (after ?? 0) && filter.matches($0, rootID: rootID) }
                .sorted { $0.sequence < $1.sequence }
            let page = Array(matching.prefix(pageSize))
            let next = matching.count > pageSize ? page.last.map { String($0.sequence) } : nil
            return (page, next)
        }
    }
}
