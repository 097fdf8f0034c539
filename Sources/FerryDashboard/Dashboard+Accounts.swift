import FerryCore
import FerryStore
import Foundation

extension Dashboard {
    /// Accounts: each account's state (and why), its cap and limits, its running and held jobs, and for an account
    /// that needs attention the command that fixes it. Never a secret: `ferry.account_status` has none.
    func accounts(_ view: DashboardView) async throws -> DashboardPage {
        let accounts = try await shared.value("accounts") { [store] in try await store.reads.accountStatus() }
        let running = try await shared.value("running_by_account") { [store] in try await store.reads.runningByAccount() }
        let now = Date()
        func fix(_ account: AccountStatusRow) -> String? {
            switch account.status {
            case "needs_reauth": "ferry account login \(account.name)"
            case "revoked": "ferry account login \(account.name) (signed out: log in again, or ferry account remove \(account.name))"
            default: nil
            }
        }
        func limits(_ account: AccountStatusRow) -> String {
            var parts = [String]()
            if let tps = account.requestLimit { parts.append(String(format: "%g requests/s", tps)) }
            if let bytes = account.bandwidthLimit { parts.append(DashboardView.bytes(bytes) + "/s per worker") }
            return parts.isEmpty ? "none" : parts.joined(separator: ", ")
        }
        var html = accounts.isEmpty ? "<p>No accounts yet: add one with <code>ferry account add NAME --provider PROVIDER</code>.</p>" : ""
        html += view.table(
            ["account", "provider", "state", "running", "cap", "limits", "held jobs", "to fix", "changed"],
            accounts.map { account in
                [HTML.escape(account.name), HTML.escape(account.provider),
                 view.status(account.status == "active" ? "active" : account.status) + (account.statusReason.map { " " + HTML.escape($0) } ?? ""),
                 "\(running[account.name] ?? 0)", "\(account.maxConcurrent)", HTML.escape(limits(account)),
                 account.heldJobs.map { "\($0)" } ?? "", fix(account).map { "<code>\(HTML.escape($0))</code>" } ?? "",
                 DashboardView.time(account.updatedAt, now: now)]
            }, rowIDs: accounts.map { "account-" + $0.name })
        let json: JSONValue = .object([
            "accounts": .array(accounts.map { account in
                var object = account.json.objectValue ?? [:]
                object["running"] = .int(running[account.name] ?? 0)
                object["fix"] = fix(account).map(JSONValue.string) ?? .null
                return .object(object)
            }),
        ])
        return DashboardPage(title: "Accounts", html: html, json: json)
    }
}
