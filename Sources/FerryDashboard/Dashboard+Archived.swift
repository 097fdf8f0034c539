import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// The page of a job that left PostgreSQL for an archive file: 410 Gone, when and where, and the restore
    /// command, as `ferry status JOB` says it; nil for a job that never existed (404).
    func archivedJob(_ id: UUID) async throws -> DashboardPage? {
        guard let archived = try await store.archive.job(id) else { return nil }
        return archivedPage(
            title: "Job \(id.uuidString.lowercased())",
            what: "This job was archived on \(HTML.escape(DashboardView.utc(archived.archivedAt))) to <code>\(HTML.escape(archived.file))</code>.",
            restore: [archived.restoreCommand], json: archived.json)
    }

    /// The page of a batch none of whose jobs is left in PostgreSQL, archived (410); nil when unknown (404).
    func archivedBatch(_ name: String) async throws -> DashboardPage? {
        guard let archived = try await store.archive.batch(name) else { return nil }
        let files = archived.files.map { "<code>\(HTML.escape($0.file))</code> (\($0.jobs) jobs, \(HTML.escape(DashboardView.utc($0.archivedAt))))" }
        return archivedPage(
            title: "Batch \(name)",
            what: "This batch was archived: its \(archived.jobs) jobs left PostgreSQL for " + files.joined(separator: ", ") + ".",
            restore: archived.restoreCommands, json: archived.json)
    }

    private func archivedPage(title: String, what: String, restore: [String], json: JSONValue) -> DashboardPage {
        let html = "<p id=\"archived\">\(what)</p><p>Bring it back with "
            + restore.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: " and ") + ".</p>"
        return DashboardPage(title: title, html: html, json: .object(["archived": json]), status: .gone)
    }
}
