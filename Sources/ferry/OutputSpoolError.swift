/// The output spool could not be created, written or read back (exit code 70).
struct OutputSpoolError: Error, CustomStringConvertible {
    var description: String
}
