import FerryCore

extension DropboxCommitInfo {
    /// `WriteMode`: what happens when something already exists at ``DropboxCommitInfo/path``.
    public enum Mode: Sendable, Hashable {
        /// Never overwrite; a conflict (or an autorenamed copy). Identical content is not a conflict.
        case add
        /// Always overwrite a file.
        case overwrite
        /// Overwrite only if the current file has this rev.
        case update(String)

        /// Stone union encoding: `{".tag": "add"}`, `{".tag": "update", "update": rev}`.
        public var json: JSONValue {
            switch self {
            case .add: .object([".tag": .string("add")])
            case .overwrite: .object([".tag": .string("overwrite")])
            case .update(let rev): .object([".tag": .string("update"), "update": .string(rev)])
            }
        }
    }
}
