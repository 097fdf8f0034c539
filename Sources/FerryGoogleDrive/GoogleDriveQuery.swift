/// Search terms for `files.list` (`q`), with names quoted safely.
///
/// Names are data, whatever they hold: inside a quoted string Drive reads `\'` as a quote and `\\` as a backslash,
/// so both are escaped (the backslash first), and nothing a name holds can end the string or add a term.
public enum GoogleDriveQuery {
    /// `'text'` with `\` and `'` escaped.
    public static func quoted(_ text: String) -> String {
        var out = "'"
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            default: out.append(character)
            }
        }
        return out + "'"
    }

    /// Everything in a folder that is not in the trash.
    public static func children(of parentID: String) -> String {
        "\(quoted(parentID)) in parents and trashed = false"
    }

    /// Items named exactly `name` in a folder (not trashed); only folders with `foldersOnly`.
    public static func child(named name: String, in parentID: String, foldersOnly: Bool = false) -> String {
        var query = "name = \(quoted(name)) and \(children(of: parentID))"
        if foldersOnly { query += " and mimeType = \(quoted(GoogleDriveFile.folderMimeType))" }
        return query
    }
}
