import ArgumentParser
import Foundation

/// Names read from the database, written back to the completion script as words its shell takes literally, and
/// the word being typed read back as the text it stands for (``typed(_:for:version:)``).
///
/// The names are not the operator's: any `ferry_producer` login chooses batch names (any printable text), and the
/// shell that receives them runs as the operator. Each shell reads ferry's answer (one word a line) its own way,
/// so each gets its own form (`SAP_SHELL`, which every generated script sets, names the shell):
/// - bash: the script hands the lines to `compgen -W`, which *expands* each word (`$(…)`, backticks, `$NAME`,
///   `$((…))`, `~`, braces) and removes quotes before offering it. Every word is single-quoted, the one quoting
///   inside which bash expands nothing, so the expansion gives back the name and runs nothing. Then readline
///   inserts the chosen name with the backslashes of `complete -o filenames`, which leave `$`, backticks and a
///   leading `~` as they are (so that a path's variables still expand): inserted, `` y`id` `` would run `id` at
///   Enter. Names holding those are left out for bash.
/// - zsh: the lines go to `_describe`, which reads `word:description` and removes backslashes; nothing is
///   expanded. `\` and `:` are escaped with a backslash so a name with a colon is not cut in two.
/// - fish: `complete -a '(…)'` takes each line of the substitution literally (fish does not expand the output of
///   a command substitution again); a tab would start a description, and no name keeps one (below).
/// - anyone else (no `SAP_SHELL`: a script of another generator, or a person): only names that no shell reads
///   specially, since the reader's rules are unknown.
///
/// Names holding a control character (newline, tab, escape, C0, DEL, C1) or a line or paragraph separator are
/// left out for every shell: the scripts split the answer at newlines, and no shell can show such a name
/// literally beneath the prompt.
enum CompletionWords {
    /// `names` as words for `shell`'s script, the unshowable ones left out, in their order.
    static func encoded(_ names: [String], for shell: CompletionShell?) -> [String] {
        names.filter(isShowable).compactMap { name in
            switch shell {
            case .bash: bashInsertsLiterally(name) ? bashQuoted(name) : nil
            case .zsh: zshEscaped(name)
            case .fish: name
            default: name.unicodeScalars.allSatisfy(isPlain) ? name : nil
            }
        }
    }

    /// Whether a shell can offer `name` as it is: not empty, and without control characters or line breaks.
    static func isShowable(_ name: String) -> Bool {
        !name.isEmpty && !name.unicodeScalars.contains(where: isUnshowable)
    }

    /// `name` in single quotes for bash, each `'` in it closing the quotes, escaped, and opening them again
    /// (`it's` → `'it'\''s'`): inside single quotes bash expands nothing, and `compgen -W` honours the quoting.
    static func bashQuoted(_ name: String) -> String {
        "'" + name.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// Whether readline's filename quoting inserts `name` so that bash reads it back literally: it backslashes
    /// every other character bash treats specially, but not `$`, backticks, nor a `~` that starts the word.
    static func bashInsertsLiterally(_ name: String) -> Bool {
        !name.contains("$") && !name.contains("`") && !name.hasPrefix("~")
    }

    /// `name` for zsh's `_describe`: a backslash before each `\` and `:`, which it would otherwise take as an
    /// escape and as the start of the description.
    static func zshEscaped(_ name: String) -> String {
        var escaped = ""
        for character in name {
            if character == "\\" || character == ":" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// The text a word being typed stands for, as `shell` passes it: bash, zsh and fish 4 pass the word as it is on
    /// the command line (`trip\ 2`, `'trip 2`), so its quotes and backslashes are removed, leniently since the word
    /// is unfinished (an open quote is fine); fish 3 passes it unescaped already (`commandline -o`), so it is kept.
    /// Without this a name with a space could never be completed past the space: after the first TAB inserts
    /// `trip\ 202`, the next one would look for names starting with a backslash.
    static func typed(_ word: String, for shell: CompletionShell?, version: String?) -> String {
        if shell == .fish, let major = version?.split(separator: ".").first.flatMap({ Int($0) }), major < 4 {
            return word
        }
        var text = ""
        var quote: Character?
        var characters = word[...]
        while let character = characters.popFirst() {
            switch (quote, character) {
            case (nil, "'"), (nil, "\""):
                quote = character
            case (nil, "\\"):
                // A backslash takes the next character as it is (a trailing one, nothing yet).
                if let next = characters.popFirst() { text.append(next) }
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("\"", "\\") where characters.first.map({ "$`\"\\".contains($0) }) == true,
                ("'", "\\") where shell == .fish && characters.first.map({ "'\\".contains($0) }) == true:
                // Inside double quotes a backslash escapes only these; fish's single quotes also take \' and \\.
                text.append(characters.removeFirst())
            default:
                text.append(character)
            }
        }
        return text
    }

    /// C0 controls, DEL, C1 controls (as ``TablePrinter/printable(_:)`` shows them escaped), and the Unicode line
    /// and paragraph separators.
    static func isUnshowable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Characters that no shell quotes, expands or splits a word at (`:` and `=` split words in bash's completion,
    /// `:` in zsh's `_describe`), safe for a caller whose reading is unknown.
    static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", ".", ",", "/", "@", "%", "+", "-": true
        default: false
        }
    }
}
