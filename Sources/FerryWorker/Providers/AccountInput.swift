/// One `ferry account add` option of an account kind, declared once: the command parses what it is given
/// against these, refuses any other, and prints their help from here. The command itself names no provider.
public struct AccountInput: Sendable, Hashable {
    /// How the option is written.
    public enum Form: Sendable, Hashable {
        /// `--NAME VALUE`: a setting, not a secret (it may show up in `ps`).
        case value(valueName: String)
        /// `--NAME-file PATH`: a secret, read from the file or from standard input for `-`, never from the
        /// command line; stored sealed.
        case secretFile
        /// `--NAME` alone: on or off.
        case flag
    }

    /// The option's name without `--` (and, for a secret, without `-file`): `app-key`, `refresh-token`.
    public var name: String
    public var form: Form
    /// One line for `--help`.
    public var help: String

    public init(_ name: String, _ form: Form, help: String) {
        self.name = name
        self.form = form
        self.help = help
    }

    /// The flag as typed: `--app-key`, `--refresh-token-file`, `--path-style`.
    public var flag: String { form == .secretFile ? "--\(name)-file" : "--\(name)" }

    /// The flag with its value, for help: `--app-key KEY`, `--refresh-token-file FILE`.
    public var usage: String {
        switch form {
        case .value(let valueName): "\(flag) \(valueName.uppercased())"
        case .secretFile: "\(flag) FILE"
        case .flag: flag
        }
    }
}
