extension BatchStatusRow.ArchivedShare {
    /// `24 archived (48.0 MiB) in /srv/archive/a.ferry-archive`, or `nil` when nothing of the batch is archived:
    /// what every place that shows a batch's totals adds, so a partly archived batch never reads as whole.
    /// `bytes` formats a byte count the way the caller shows sizes.
    public func summary(bytes format: (Int64) -> String) -> String? {
        guard jobs > 0 else { return nil }
        let size = unsized == jobs ? "" : " (\(format(bytes))\(unsized > 0 ? " and \(unsized) of unknown size" : ""))"
        let place = files.count == 1 ? files[0] : "\(files.count) archive files, the first \(files.first ?? "")"
        return "\(jobs) archived\(size) in \(place)"
    }

    /// The commands that bring the archived jobs back.
    public var restoreCommands: [String] { files.map { "ferry archive restore \($0)" } }
}
