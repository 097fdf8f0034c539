import FerryStore

extension Status {
    /// A batch's bytes for the table: done of the total when every size is known; with sizes unknown, the total
    /// known so far as a lower bound ("of at least"), or none when what is done already passed it (the unknown
    /// ones moved bytes the total does not count); never "- +" for a total nobody knows.
    static func batchBytes(_ row: BatchStatusRow) -> String {
        let done = TablePrinter.bytes(row.bytesDone)
        let unknown = "\(row.sizesUnknown) size\(row.sizesUnknown == 1 ? "" : "s") unknown"
        guard let total = row.bytesTotal else { return row.sizesUnknown > 0 ? "\(done) (\(unknown))" : done }
        if row.sizesUnknown > 0 {
            return row.bytesDone > total ? "\(done) (\(unknown))" : "\(done) of at least \(TablePrinter.bytes(total)) (\(unknown))"
        }
        if row.bytesDone > total { return "\(done) (more than the \(TablePrinter.bytes(total)) expected)" }
        return "\(done) / \(TablePrinter.bytes(total))"
    }

    /// A batch's percent for the table; a finished batch with jobs that did not succeed says how much did
    /// ("50.0% ok"), not "100%".
    static func batchPercent(_ row: BatchStatusRow) -> String {
        let unsuccessful = row.failed + row.cancelled + row.discarded
        guard row.done, unsuccessful > 0, row.jobs > 0 else { return row.percent + "%" }
        return String(format: "%.1f%% ok", Double(row.succeeded) / Double(row.jobs) * 100)
    }
}
