import ArgumentParser
import FerryCore
import FerryStore
import FerryProviders
import FerryWorker
import Foundation

/// `ferry account rekey`: re-seals every stored secret under a new key, in one transaction.
struct AccountRekey: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-seal every account's stored secrets under a new FERRY_SECRET_KEY (key rotation).",
        discussion: """
            Reads the old key from --old-key-file (or FERRY_OLD_SECRET_KEY_FILE, or FERRY_OLD_SECRET_KEY) and the \
            new key from --new-key-file (or FERRY_SECRET_KEY_FILE, or FERRY_SECRET_KEY: the key the workers will \
            use), never from the command line. Every secret sealed with the old key is opened and sealed again with \
            the new one in one transaction, with an 'updated' account event (change rekeyed, the two key \
            fingerprints) per account: all accounts or none. Accounts already sealed with the new key are left as \
            they are, so it can be run again. An account added before schema 30 has its secret stored in the \
            kind's own shape on the way. Runs as the schema owner.

            Rotation: stop the workers, run rekey, start the workers with the new key. A worker whose key does \
            not open the stored secrets does not start (exit 78): one started with the old key by mistake says \
            so instead of failing the accounts' jobs. A worker still running with the old key defers those jobs \
            (15 seconds, no attempt used, last error secret_key_mismatch) for a worker with the new key.

            Examples:
              head -c 32 /dev/urandom | base64 > /etc/ferry/secret-key.new
              ferry account rekey --old-key-file /etc/ferry/secret-key \\
                  --new-key-file /etc/ferry/secret-key.new
            """)

    @Option(help: ArgumentHelp("File holding the key the secrets are sealed with now.", valueName: "file"), completion: .file())
    var oldKeyFile: String?

    @Option(help: ArgumentHelp("File holding the key to seal them with (default: FERRY_SECRET_KEY_FILE or FERRY_SECRET_KEY).", valueName: "file"),
        completion: .file())
    var newKeyFile: String?

    @OptionGroup var common: CommandOptions

    func run() async throws {
        try await runReporting {
            let environment = ProcessInfo.processInfo.environment
            let old = try Self.key(
                file: oldKeyFile, what: "old key", fileVariable: "FERRY_OLD_SECRET_KEY_FILE", variable: "FERRY_OLD_SECRET_KEY",
                environment: environment)
            guard let old else {
                throw CLIUsageError(
                    message: "no old key: give --old-key-file FILE (or set FERRY_OLD_SECRET_KEY_FILE or FERRY_OLD_SECRET_KEY)")
            }
            let new = try Self.key(file: newKeyFile, what: "new key", fileVariable: nil, variable: nil, environment: environment)
                ?? SecretKey.fromEnvironment(environment)
            guard old.id != new.id else {
                throw CLIUsageError(message: "the old and the new key are the same key: give the new key with --new-key-file FILE")
            }
            return try await connection.withStore { store in
                // Accounts stored before schema 30 move into their kind's shape of secrets on the way.
                let registry = ProviderRegistry.standard
                let resealed = try await store.accounts.rekey(
                    from: SecretBox(key: old), to: SecretBox(key: new), by: CommandTarget.requester,
                    upgrade: { provider, legacy in registry.accountKind(of: provider)?.secrets(fromLegacy: legacy) })
                if json {
                    print(JSONValue.object([
                        "resealed": .array(resealed.map(JSONValue.string)), "key_id": .string(new.id),
                    ]).jsonText)
                    return
                }
                print("re-sealed \(resealed.count) account(s) under key fingerprint \(new.id)\(resealed.isEmpty ? "" : ": " + resealed.joined(separator: ", "))")
            }
        }
    }

    /// The key from `file`, else from the environment (`fileVariable` names a file, `variable` holds the key);
    /// `nil` when none is given. Errors name where the key came from, never the key.
    static func key(
        file: String?, what: String, fileVariable: String?, variable: String?, environment: [String: String]
    ) throws -> SecretKey? {
        let path = file ?? fileVariable.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 }
        if let path {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CLIUsageError(message: "cannot read the \(what) from \(path): check the path and its permissions")
            }
            do {
                return try SecretKey(text: text)
            } catch {
                throw CLIUsageError(message: "\(path) must hold the \(what): 32 random bytes written as base64 or hex")
            }
        }
        guard let variable, let text = environment[variable], !text.isEmpty else { return nil }
        do {
            return try SecretKey(text: text)
        } catch {
            throw CLIUsageError(message: "\(variable) must hold the \(what): 32 random bytes written as base64 or hex")
        }
    }
}
