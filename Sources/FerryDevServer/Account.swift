/// A linked Dropbox account of the dev server.
struct Account: Sendable, Equatable {
    /// Name used by the seeding helpers and `/__dev/accounts`.
    var name: String
    /// `dbid:...`, derived from the name so it is stable across restarts.
    var accountID: String
    /// Folder under the storage directory holding the account's files.
    var folder: String

    var email: String { "\(folder)@ferry.invalid" }
}
