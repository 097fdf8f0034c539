import Foundation

extension SafePath {
    /// The hidden name a job writes `name` under until it is complete: `.NAME.ferry-JOBID.part`, the whole job id
    /// (32 hex digits: two jobs never share one, unlike a prefix of a time-ordered id), with `NAME` shortened on a
    /// character boundary so the result fits in 255 bytes.
    public static func temporaryName(for name: String, jobID: UUID) -> String {
        let tag = jobID.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let suffix = ".ferry-" + tag + ".part"
        var kept = Substring(name)
        while 1 + kept.utf8.count + suffix.utf8.count > maxComponentBytes { kept = kept.dropLast() }
        return "." + kept + suffix
    }
}
