import FerryProviders
import FerryWorker

/// Help text the listing commands share, the remote forms read from the providers that list.
enum ListingHelp {
    /// How each provider's folders are written (``ProviderHandlers/listingExample``).
    static let forms = ProviderRegistry.standard.providers.compactMap { ($0 as? any ProviderHandlers)?.listingExample }

    /// An example remote of the first provider with accounts that lists, its folder named `folder`.
    static func example(_ folder: String) -> String {
        let form = forms.first { $0.contains("ACCOUNT") } ?? "/dir/"
        return form.replacingOccurrences(of: "ACCOUNT", with: "photos").replacingOccurrences(of: "folder", with: folder)
    }

    static let remotes = """
        REMOTE is a folder, written \(forms.joined(separator: ", ")) (a trailing / is implied; a relative local path \
        is taken from here). Accounts are opened with the secret key (FERRY_SECRET_KEY or FERRY_SECRET_KEY_FILE) \
        and the database, as workers open them; local folders need neither. The listing runs here, in the CLI: it \
        reads and changes nothing, and it is bounded by --max-entries and --max-depth. Names are printed \
        terminal-safe: control characters show as \\u{…} (--json escapes them as JSON does).

        Filters choose files by their path below REMOTE, as for ferry enqueue upload DIR --recursive: \
        --include/--exclude GLOB, --filter-from FILE, --min-size/--max-size, --max-age/--min-age.
        """
}
