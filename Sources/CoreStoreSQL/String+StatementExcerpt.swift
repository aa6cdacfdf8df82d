extension String {
    /// The statement as an error message quotes it: whole up to 300 characters, longer ones cut
    /// there with the total length noted (a batched `INSERT` of 64 rows runs to thousands of
    /// characters of placeholders, which say nothing the first row does not).
    package var statementExcerpt: String {
        let limit = 300
        guard count > limit else { return self }
        return String(prefix(limit)) + "… (\(count) characters)"
    }
}
