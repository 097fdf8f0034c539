import FerryCore
import FerryProviders

extension Dashboard {
    /// The form's `options` text, `NAME=VALUE` pairs apart by spaces or commas (`mode=overwrite`,
    /// `autorename=true`; a bare NAME is a true/false option set to true), as the JSON values the providers declare
    /// (the typing `ferry retry --option` uses). Empty text, no options. Whether each job's provider takes them is
    /// the database's check at the retry itself (`ferry.check_requeued`), which refuses the whole retry.
    func retryOptions(_ fields: FormFields) throws(ValidationIssue) -> [String: JSONValue] {
        let text = fields["options"] ?? ""
        guard text.utf8.count <= 2000 else {
            throw ValidationIssue(field: "options", problem: "is longer than 2000 bytes", fix: "give the options a retry changes, for example mode=overwrite")
        }
        var options = [String: JSONValue]()
        for pair in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard !name.isEmpty else {
                throw ValidationIssue(field: "options", problem: "\"\(pair)\" has no option name", fix: "write NAME=VALUE, for example mode=overwrite")
            }
            guard options[name] == nil else {
                throw ValidationIssue(field: "options", problem: "\(name) is given twice", fix: "give it once")
            }
            options[name] = try providers.retryOptionValue(name: name, text: parts.count > 1 ? String(parts[1]) : "")
        }
        return options
    }
}
