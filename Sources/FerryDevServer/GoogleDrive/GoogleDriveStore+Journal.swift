import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Persistence: every change to the index is one JSON line appended to the journal; at start-up the journal is read
/// back and rewritten with only what is current, so it stays as small as the index.
extension GoogleDriveStore {
    /// Appends one change (under the state lock, so lines follow the order of the changes).
    static func append(_ state: inout State, _ change: JSONValue) {
        guard state.journal >= 0 else { return }
        var bytes = Array(change.jsonText.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(state.journal, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Records an item as it now is.
    static func save(_ state: inout State, _ item: GoogleDriveItem) {
        append(&state, .object(["op": .string("item"), "item": item.record]))
    }

    /// Replays the journal, then rewrites it compacted and opens it for appending.
    func loadJournal() throws {
        var loaded = State()
        if let data = FileManager.default.contents(atPath: journalPath) {
            for line in data.split(separator: 0x0A) {
                guard let change = try? JSONValue.parse(utf8: Array(line)) else { continue }
                Self.apply(change, to: &loaded)
            }
        }
        let now = clock.now
        loaded.accessTokens = loaded.accessTokens.filter { $0.value.expiresAt > now - 86_400 }
        var lines: [JSONValue] = []
        for (name, root) in loaded.accounts.sorted(by: { $0.key < $1.key }) {
            if let item = loaded.items[root] { lines.append(.object(["op": .string("account"), "name": .string(name), "root": item.record])) }
        }
        for item in loaded.items.values.sorted(by: { $0.sequence < $1.sequence }) where !item.parents.isEmpty {
            lines.append(.object(["op": .string("item"), "item": item.record]))
        }
        for (token, account) in loaded.refreshTokens.sorted(by: { $0.key < $1.key }) {
            lines.append(.object(["op": .string("refresh"), "token": .string(token), "account": .string(account)]))
        }
        for (token, record) in loaded.accessTokens.sorted(by: { $0.key < $1.key }) {
            lines.append(.object([
                "op": .string("access"), "token": .string(token), "account": .string(record.account), "expires_at": .double(record.expiresAt),
            ]))
        }
        let text = lines.map { $0.jsonText + "\n" }.joined()
        let temporary = journalPath + ".tmp"
        // Written beside and renamed, so a crash never leaves a torn journal.
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, journalPath) == 0
        else { throw DevServerError("cannot write \(journalPath)") }
        let descriptor = open(journalPath, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw DevServerError("cannot open \(journalPath)") }
        loaded.journal = descriptor
        state.withLock { $0 = loaded }
    }

    /// Applies one journal line.
    static func apply(_ change: JSONValue, to state: inout State) {
        switch change["op"]?.stringValue {
        case "account":
            guard let name = change["name"]?.stringValue, let root = change["root"].flatMap(GoogleDriveItem.init(record:)) else { return }
            state.accounts[name] = root.id
            put(root, into: &state)
        case "item":
            guard let item = change["item"].flatMap(GoogleDriveItem.init(record:)) else { return }
            put(item, into: &state)
        case "delete":
            guard let id = change["id"]?.stringValue, let item = state.items.removeValue(forKey: id) else { return }
            for parent in item.parents { state.children[parent]?.remove(id) }
        case "refresh":
            guard let token = change["token"]?.stringValue, let account = change["account"]?.stringValue else { return }
            state.refreshTokens[token] = account
        case "revoke":
            guard let token = change["token"]?.stringValue else { return }
            state.refreshTokens.removeValue(forKey: token)
        case "access":
            guard let token = change["token"]?.stringValue, let account = change["account"]?.stringValue,
                let expires = change["expires_at"]?.numberValue
            else { return }
            state.accessTokens[token] = AccessToken(account: account, expiresAt: expires)
        default:
            return
        }
    }

    /// Puts an item into the index (replacing an older version of it), keeping the parent index in step.
    static func put(_ item: GoogleDriveItem, into state: inout State) {
        if let old = state.items[item.id] {
            for parent in old.parents where !item.parents.contains(parent) { state.children[parent]?.remove(item.id) }
        }
        state.items[item.id] = item
        for parent in item.parents { state.children[parent, default: []].insert(item.id) }
        state.sequence = max(state.sequence, item.sequence)
    }
}
