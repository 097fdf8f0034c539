import ArgumentParser
import FerryCore
import FerryProviders
import FerryWorker
import Logging

/// What the shell completions (`ferry --generate-completion-script bash|zsh|fish`) offer for option and argument
/// values that are neither files nor directories: words this build knows, written into the script, and names
/// read from the database when the user presses TAB.
///
/// The database values come from the completion script calling back into ferry (`ferry ---completion …`, the
/// argument parser's hidden entry point); ``CompletionReader`` reads them quickly, silently and as a reader, and
/// ``CompletionWords`` writes them back as words the asking shell takes literally: producers choose batch names,
/// and the shell that offers them runs as the operator.
enum CompletionValues {
    /// Batch names, the newest first.
    static let batch = database(.batch)
    /// Queue names that hold jobs.
    static let queue = database(.queue)
    /// Account names.
    static let account = database(.account)
    /// Schedule names (removed ones left out).
    static let schedule = database(.schedule)
    /// Job ids, the newest first.
    static let job = database(.job)

    /// `worker --queues a,b`: queue names after the last comma, keeping what comes before it.
    static let queueList = CompletionKind.custom { words, index, typed in
        let text = CompletionReader.unquoted(CompletionReader.word(words, index, typed: typed))
        let head = text.lastIndex(of: ",").map { String(text[...$0]) } ?? ""
        let names = await CompletionReader.values(.queue, prefix: String(text.dropFirst(head.count)), words: words)
        // The whole word is written back, what the user typed before the comma included: it is quoted with the name.
        return CompletionWords.encoded(names.map { head + $0 }, for: CompletionShell.requesting)
    }

    /// `--log-level`: swift-log's levels.
    static let logLevel = CompletionKind.list(Logger.Level.allCases.map(\.rawValue))
    /// `worker --log-format`.
    static let logFormat = CompletionKind.list(["text", "json"])
    /// `schedule add --overlap`.
    static let overlap = CompletionKind.list(ScheduleOverlap.allCases.map(\.rawValue))
    /// `account add|login --provider`: the kinds of account.
    static let accountProvider = CompletionKind.list(ProviderRegistry.standard.accountProviderNames)
    /// `discard --status`: the one state that can be discarded.
    static let discardableState = CompletionKind.list([JobState.failed.rawValue])

    /// The words a provider option takes (`--thumbnail`, `--size`), across every provider that declares it.
    static func providerChoices(_ name: String) -> CompletionKind {
        var words = [String]()
        for provider in ProviderRegistry.standard.providers {
            for kind in JobKind.allCases {
                for option in provider.options(for: kind) where option.name == name {
                    if case .choice(let choices) = option.type {
                        words += choices.filter { !words.contains($0) }
                    }
                }
            }
        }
        return .list(words)
    }

    /// Values of `source` read from the database when the user presses TAB.
    static func database(_ source: CompletionSource) -> CompletionKind {
        .custom { words, index, typed in
            let names = await CompletionReader.values(
                source, prefix: CompletionReader.word(words, index, typed: typed), words: words)
            return CompletionWords.encoded(names, for: CompletionShell.requesting)
        }
    }
}
