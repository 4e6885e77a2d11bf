import CReverieXML
import Foundation

/// An XML document read by libxml2 into plain Swift values, with the network off and entities
/// never expanded: a document that declares entities (the XXE and billion-laughs attacks both
/// need one) is refused before anything else is read.
struct XMLElement: Sendable {
    /// The local name (`enclosure`, `duration`).
    var name: String
    /// The namespace URI, or "" for none.
    var namespace: String
    var attributes: [String: String]
    var children: [XMLElement]
    /// The text directly inside (CDATA included), not trimmed.
    var text: String

    func attribute(_ name: String) -> String? { attributes[name] }

    /// The first child with this name in this namespace ("" for none).
    func child(_ name: String, _ namespace: String = "") -> XMLElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    func children(_ name: String, _ namespace: String = "") -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// The trimmed text of the first such child, nil when missing or empty.
    func value(_ name: String, _ namespace: String = "") -> String? {
        guard let text = child(name, namespace)?.text else { return nil }
        // Trimmed by hand: Foundation's trimming bridges every string through NSString.
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else { return nil }
        return String(text[first...last])
    }
}

enum XMLTree {
    /// Elements deeper than this are an attack or a mistake, not a feed.
    static let maximumDepth = 64
    /// Elements in one document.
    static let maximumElements = 2_000_000

    /// The document's root element; `namespace` may fold a namespace URI into another spelling
    /// (each distinct URI is asked once).
    static func parse(_ data: Data, namespace fold: @escaping (String) -> String = { $0 }) throws -> XMLElement {
        guard !data.isEmpty else { throw FeedError.malformed("the document is empty") }
        guard data.count <= Int(Int32.max) else { throw FeedError.tooLarge }
        // Refused before libxml2 sees it: a document type that declares entities.
        if declaresEntities(data) { throw FeedError.entitiesRefused }
        reverie_xml_quiet()
        // No NOENT (entities stay references), NONET (no fetching of anything), NOCDATA (CDATA as text).
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = data.withUnsafeBytes { raw -> xmlDocPtr? in
            xmlReadMemory(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(data.count), nil, nil, options)
        }
        guard let document else {
            let message = xmlGetLastError().flatMap { $0.pointee.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } }
            throw FeedError.malformed(message.map { "not well-formed XML (\($0))" } ?? "not well-formed XML")
        }
        defer { xmlFreeDoc(document) }
        if let subset = document.pointee.intSubset, subset.pointee.entities != nil {
            throw FeedError.entitiesRefused
        }
        if let subset = document.pointee.extSubset, subset.pointee.entities != nil {
            throw FeedError.entitiesRefused
        }
        guard let root = xmlDocGetRootElement(document) else { throw FeedError.malformed("the document has no root element") }
        var builder = Builder(fold: fold)
        return try builder.element(root, depth: 0)
    }

    /// Turns libxml2's nodes into `XMLElement`s. Element and attribute names (and namespace
    /// URIs) are interned by libxml2, one pointer per distinct name, so each becomes a Swift
    /// string once.
    private struct Builder {
        let fold: (String) -> String
        var count = 0
        var names: [UnsafePointer<xmlChar>: String] = [:]
        var namespaces: [UnsafePointer<xmlChar>: String] = [:]

        mutating func name(_ pointer: UnsafePointer<xmlChar>?) -> String {
            guard let pointer else { return "" }
            if let known = names[pointer] { return known }
            let made = String(cString: pointer)
            names[pointer] = made
            return made
        }

        mutating func namespace(_ pointer: UnsafePointer<xmlChar>?) -> String {
            guard let pointer else { return "" }
            if let known = namespaces[pointer] { return known }
            let folded = fold(String(cString: pointer))
            namespaces[pointer] = folded
            return folded
        }

        mutating func element(_ node: xmlNodePtr, depth: Int) throws -> XMLElement {
            count += 1
            guard depth < maximumDepth else { throw FeedError.malformed("elements nested more than \(maximumDepth) deep") }
            guard count <= maximumElements else { throw FeedError.tooLarge }
            let elementName = name(node.pointee.name)
            let uri = namespace(node.pointee.ns?.pointee.href)
            var attributes: [String: String] = [:]
            var attribute = node.pointee.properties
            while let current = attribute {
                let key = name(current.pointee.name)
                // xml:base and other prefixed attributes keep their prefix-free name; the first wins.
                if attributes[key] == nil {
                    // The usual attribute is one text node: read in place, no copy to free.
                    if let text = current.pointee.children, text.pointee.next == nil, text.pointee.type == XML_TEXT_NODE, let content = text.pointee.content {
                        attributes[key] = String(cString: content)
                    } else if let value = xmlNodeGetContent(UnsafeMutablePointer(OpaquePointer(current))) {
                        attributes[key] = String(cString: value)
                        reverie_xml_free(value)
                    }
                }
                attribute = current.pointee.next
            }
            var children: [XMLElement] = []
            var text = ""
            var child = node.pointee.children
            while let current = child {
                switch current.pointee.type {
                case XML_ELEMENT_NODE:
                    children.append(try element(current, depth: depth + 1))
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = current.pointee.content {
                        if text.isEmpty { text = String(cString: content) } else { text += String(cString: content) }
                    }
                case XML_ENTITY_REF_NODE:
                    throw FeedError.entitiesRefused
                default:
                    break
                }
                child = current.pointee.next
            }
            return XMLElement(name: elementName, namespace: uri, attributes: attributes, children: children, text: text)
        }
    }

    /// Whether a `<!DOCTYPE …>` declares any `<!ENTITY`. A document type can only come in the
    /// prolog, before the root element, so only the prolog is read (past its comments and
    /// processing instructions): a feed that merely mentions the words later passes, and a large
    /// feed costs nothing more.
    static func declaresEntities(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            let count = raw.count
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            /// Where `needle` next begins at or after `start`, or nil.
            func find(_ needle: StaticString, from start: Int) -> Int? {
                let length = needle.utf8CodeUnitCount
                var at = start
                while at + length <= count, let hit = memchr(bytes + at, Int32(needle.utf8Start[0]), count - at) {
                    let index = bytes.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if index + length <= count, memcmp(bytes + index, needle.utf8Start, length) == 0 { return index }
                    at = index + 1
                }
                return nil
            }
            func starts(_ prefix: StaticString, at index: Int) -> Bool {
                let length = prefix.utf8CodeUnitCount
                return index + length <= count && memcmp(bytes + index, prefix.utf8Start, length) == 0
            }
            var index = 0
            while index < count {
                guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
                if starts("<?", at: index) {
                    guard let end = find("?>", from: index + 2) else { return false }
                    index = end + 2
                } else if starts("<!--", at: index) {
                    guard let end = find("-->", from: index + 4) else { return false }
                    index = end + 3
                } else if starts("<!DOCTYPE", at: index) {
                    // Its internal subset, if any, runs from [ to ]>; else it ends at the first >.
                    let close = find(">", from: index) ?? count
                    let open = find("[", from: index).flatMap { $0 < close ? $0 : nil }
                    let end = open.map { find("]>", from: $0) ?? count } ?? close
                    guard let entity = find("<!ENTITY", from: index) else { return false }
                    return entity < end
                } else {
                    return false   // the root element: no document type can follow
                }
            }
            return false
        }
    }
}
