/// A provider option's value as the caller gave it, before the provider's declaration types it.
///
/// The command line has only text (`--option max=10`); JSON Lines has typed values (`"max": 10`). Text is
/// converted to the declared type; JSON must already have it, so a quoted number in JSON is still an error.
public enum OptionValue: Sendable, Hashable {
    /// A value from a JSON Lines record (or a flag that sets a typed value, such as `--recursive`).
    case json(JSONValue)
    /// The text after `=` in `--option NAME=VALUE`.
    case commandLine(String)
}
