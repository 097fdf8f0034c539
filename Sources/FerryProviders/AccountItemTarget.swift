/// What an ``AccountItemLocation`` names in the account.
public enum AccountItemTarget: Sendable, Hashable {
    /// An absolute path: `/`-separated names (a folder ends in `/`).
    case path(String)
    /// The service's id of one item.
    case id(String)
}
