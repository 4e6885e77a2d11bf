/// Waiters served in turn by group: each group's waiters in the order they came, the groups in
/// rotation. A group that has just been served goes to the back of the line, so one group with
/// many waiters (a long render's phrases) never keeps another (a short render) waiting long.
struct FairQueue<Element> {
    private var waiting: [String: [Element]] = [:]
    /// Groups with waiters, the next to be served first.
    private var turns: [String] = []

    var isEmpty: Bool { turns.isEmpty }
    /// Waiters in the line, of every group.
    var count: Int { waiting.values.reduce(0) { $0 + $1.count } }

    mutating func enqueue(_ element: Element, group: String) {
        if waiting[group] == nil { turns.append(group) }
        waiting[group, default: []].append(element)
    }

    /// Takes the first waiter of `group` that `matches` out of the line (it waits no more); nil
    /// when none does.
    mutating func remove(from group: String, where matches: (Element) -> Bool) -> Element? {
        guard var list = waiting[group], let index = list.firstIndex(where: matches) else { return nil }
        let element = list.remove(at: index)
        if list.isEmpty {
            waiting[group] = nil
            turns.removeAll { $0 == group }
        } else {
            waiting[group] = list
        }
        return element
    }

    /// The first waiter of the group whose turn it is.
    mutating func dequeue() -> Element? {
        guard !turns.isEmpty else { return nil }
        let group = turns.removeFirst()
        var list = waiting[group] ?? []
        let element = list.removeFirst()
        if list.isEmpty {
            waiting[group] = nil
        } else {
            waiting[group] = list
            turns.append(group)
        }
        return element
    }
}

/// Which render a speech request belongs to, for taking turns in a pool of workers: set by
/// `ScriptRenderer` around each render, read by engines with more than one worker.
public enum SpeechRequests {
    @TaskLocal public static var group = ""
    /// The request is a render's first phrase (`ScriptRenderer` marks every render's), which a
    /// person who tapped is usually waiting to hear: an engine with a pool speaks it before the
    /// phrases already waiting (issue 46, first sound). One phrase per render, so a render spoken
    /// ahead that nobody waits for yet goes first once too.
    @TaskLocal public static var opening = false
}
