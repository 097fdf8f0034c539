import Foundation

/// A new empty folder in the temporary directory, named after `label`; tests remove it when they want to.
public func temporaryFolder(_ label: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-\(label)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}
