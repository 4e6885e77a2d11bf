/// Picks the next piece at random with no repeat until every piece in the pool has played: the
/// presets of a kind and the person's own, as the Leaf/Masks button asks for them.
///
/// `played` is what has played since the pool was last full; the pick comes from the rest. When
/// nothing is left, a new round begins with everything but the piece that played last, so a round's
/// end never repeats it at once.
public enum ContentPool {
    /// The next id, and the `played` list to keep for the next pick; nil when the pool is empty.
    public static func next<Generator: RandomNumberGenerator>(from pool: [String], played: [String], using generator: inout Generator)
        -> (id: String, played: [String])? {
        guard !pool.isEmpty else { return nil }
        let members = Set(pool)
        var history = played.filter(members.contains)
        var left = pool.filter { !history.contains($0) }
        if left.isEmpty {
            let last = history.last
            history = []
            left = pool.count > 1 ? pool.filter { $0 != last } : pool
        }
        let pick = left.randomElement(using: &generator)!
        return (pick, history + [pick])
    }
}
