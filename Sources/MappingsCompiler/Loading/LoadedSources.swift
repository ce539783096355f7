/// The files a load read, in the order they were reached, with what the later stages need
/// of them: which files each one reaches through `@import`s, and their texts.
struct LoadedSources {
    /// The files, in the order they were first reached.
    let files: [LoadedFile]
    /// For each file identity, the identities it reaches through its `@import`s.
    let reach: [String: Set<String>]
    /// The texts read, by path, for rendering diagnostics.
    let texts: [String: String]
    /// The files that did not parse.
    var unparsed: [String] = []
}
