import FerryCore

/// One `seedFiles` call, remembered in `.devserver/seeds.json` so seeded files whose bytes
/// were never needed (and so never written) come back after a restart.
struct SeedBatch: Sendable, Equatable {
    var account: String
    /// Folder as given (`""` is the root); resolved against existing folders when applied.
    var folder: String
    var count: Int
    var size: Int
    var prefix: String

    /// `<prefix><number>.bin`, the number zero-padded to at least five digits.
    func name(_ index: Int) -> (name: String, number: String) {
        let width = max(String(max(count - 1, 0)).count, 5)
        let digits = String(index)
        let number = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return (prefix + number + ".bin", number)
    }

    var json: JSONValue {
        .object([
            "account": .string(account), "folder": .string(folder), "count": .int(Int64(count)),
            "size": .int(Int64(size)), "prefix": .string(prefix),
        ])
    }

    init(account: String, folder: String, count: Int, size: Int, prefix: String) {
        self.account = account
        self.folder = folder
        self.count = count
        self.size = size
        self.prefix = prefix
    }

    init?(json: JSONValue) {
        guard let account = json["account"]?.stringValue, let folder = json["folder"]?.stringValue,
              let count = json["count"]?.intValue, let size = json["size"]?.intValue,
              let prefix = json["prefix"]?.stringValue
        else { return nil }
        self.init(account: account, folder: folder, count: Int(count), size: Int(size), prefix: prefix)
    }
}
