import CReverieXML
import Foundation

/// An XML document read by libxml2 into plain Swift values, with the network off and entities
/// never expanded: a document that declares entities (the XXE and billion-laughs attacks both
/// need one) is refused before anything else is read.
public struct XMLElement: Sendable {
    /// The local name (`enclosure`, `duration`).
    public var name: String
    /// The namespace URI, or "" for none.
    public var namespace: String
    public var attributes: [String: String]
    public var children: [XMLElement]
    /// The text directly inside (CDATA included), not trimmed.
    public var text: String

    public func attribute(_ name: String) -> String? { attributes[name] }

    /// The first child with this name in this namespace ("" for none).
    public func child(_ name: String, _ namespace: String = "") -> XMLElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    public func children(_ name: String, _ namespace: String = "") -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// The trimmed text of the first such child, nil when missing or empty.
    public func value(_ name: String, _ namespace: String = "") -> String? {
        // By index: no copy of the child element is made just to read its text.
        guard let index = children.firstIndex(where: { $0.name == name && $0.namespace == namespace }) else { return nil }
        let text = children[index].text.trimmed
        return text.isEmpty ? nil : text
    }
}

public enum XMLTree {
    /// Elements deeper than this are an attack or a mistake, not a feed.
    static let maximumDepth = 64
    /// Elements in one document.
    static let maximumElements = 2_000_000

    /// The document's root element; `namespace` may fold a namespace URI into another spelling
    /// (each distinct URI is asked once).
    /// With `recover`, a document that ends with elements still open (a feed cut short) keeps
    /// what came before: libxml2's recovery, and the open elements closed at the end.
    public static func parse(_ data: Data, recover: Bool = false, namespace fold: @escaping (String) -> String = { $0 }) throws -> XMLElement {
        guard !data.isEmpty else { throw FeedError.malformed("the document is empty") }
        guard data.count <= Int(Int32.max) else { throw FeedError.tooLarge }
        // Refused before libxml2 sees it: a document type that declares entities.
        if declaresEntities(data) { throw FeedError.entitiesRefused }
        reverie_xml_quiet()
        let state = SAXState(fold: fold)
        let count = Int32(data.count)
        let wellFormed = try data.withUnsafeBytes { raw -> Bool in
            guard let context = xmlCreateMemoryParserCtxt(raw.baseAddress?.assumingMemoryBound(to: CChar.self), count) else {
                throw FeedError.malformed("the document could not be read")
            }
            defer { xmlFreeParserCtxt(context) }
            // Network off; no entity is ever looked up (no getEntity, resolveEntity or entityDecl
            // handlers), so a reference to one is an error, never an expansion.
            xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                                             | (recover ? XML_PARSE_RECOVER.rawValue : 0)))
            context.pointee.sax.pointee = SAXState.handler
            context.pointee.userData = Unmanaged.passUnretained(state).toOpaque()
            state.context = context
            xmlParseDocument(context)
            return context.pointee.wellFormed != 0
        }
        if let failure = state.failure { throw failure }
        if recover, state.root == nil, !state.stack.isEmpty {
            while let open = state.stack.popLast() {
                let element = XMLElement(name: open.name, namespace: open.namespace, attributes: open.attributes, children: open.children,
                                         text: open.text.isEmpty ? "" : String(decoding: open.text, as: UTF8.self))
                if state.stack.isEmpty { state.root = element } else { state.stack[state.stack.count - 1].children.append(element) }
            }
        }
        guard wellFormed || (recover && state.root != nil) else {
            let message = xmlGetLastError().flatMap { $0.pointee.message.map { String(cString: $0).trimmed } }
            throw FeedError.malformed(message.map { "not well-formed XML (\($0))" } ?? "not well-formed XML")
        }
        guard let root = state.root else { throw FeedError.malformed("the document has no root element") }
        return root
    }

    /// What the SAX callbacks build: a stack of open elements (their text gathered as bytes and
    /// made a string once), the root when done. Names and namespace URIs come interned from
    /// libxml2, so each distinct one becomes a Swift string once. No document tree is built.
    private final class SAXState {
        struct Open {
            var name: String
            var namespace: String
            var attributes: [String: String]
            var children: [XMLElement] = []
            var text: [UInt8] = []
        }

        let fold: (String) -> String
        var stack: [Open] = []
        var root: XMLElement?
        var count = 0
        var failure: FeedError?
        var context: xmlParserCtxtPtr?
        var names: [UnsafePointer<xmlChar>: String] = [:]
        var namespaces: [UnsafePointer<xmlChar>: String] = [:]

        init(fold: @escaping (String) -> String) {
            self.fold = fold
        }

        func name(_ pointer: UnsafePointer<xmlChar>?) -> String {
            guard let pointer else { return "" }
            if let known = names[pointer] { return known }
            let made = String(cString: pointer)
            names[pointer] = made
            return made
        }

        func namespace(_ pointer: UnsafePointer<xmlChar>?) -> String {
            guard let pointer else { return "" }
            if let known = namespaces[pointer] { return known }
            let folded = fold(String(cString: pointer))
            namespaces[pointer] = folded
            return folded
        }

        func fail(_ error: FeedError) {
            if failure == nil { failure = error }
            if let context { xmlStopParser(context) }
        }

        static func of(_ pointer: UnsafeMutableRawPointer?) -> SAXState {
            Unmanaged<SAXState>.fromOpaque(pointer!).takeUnretainedValue()
        }

        nonisolated(unsafe) static let handler: xmlSAXHandler = {
            var handler = xmlSAXHandler()
            handler.initialized = XML_SAX2_MAGIC
            handler.startElementNs = { context, localName, _, uri, _, _, attributeCount, _, attributes in
                let state = SAXState.of(context)
                state.count += 1
                guard state.stack.count < XMLTree.maximumDepth else { return state.fail(.malformed("elements nested more than \(XMLTree.maximumDepth) deep")) }
                guard state.count <= XMLTree.maximumElements else { return state.fail(.tooLarge) }
                var values: [String: String] = [:]
                if let attributes, attributeCount > 0 {
                    // Five pointers each: local name, prefix, URI, value start, value end.
                    for index in 0..<Int(attributeCount) {
                        let key = state.name(attributes[index * 5])
                        // xml:base and other prefixed attributes keep their prefix-free name; the first wins.
                        guard values[key] == nil, let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                        let bytes = UnsafeBufferPointer(start: start, count: start.distance(to: end))
                        let value = String(decoding: bytes, as: UTF8.self)
                        // libxml2's SAX interface hands an escaped ampersand over as &#38;: read back.
                        values[key] = bytes.contains(UInt8(ascii: "&")) ? value.replacingOccurrences(of: "&#38;", with: "&") : value
                    }
                }
                // The whitespace between a container's elements (an item's indentation) is never
                // read: dropped rather than made into strings.
                if let last = state.stack.indices.last, !state.stack[last].text.isEmpty,
                   state.stack[last].text.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }) {
                    state.stack[last].text.removeAll()
                }
                state.stack.append(Open(name: state.name(localName), namespace: state.namespace(uri), attributes: values))
            }
            handler.endElementNs = { context, _, _, _ in
                let state = SAXState.of(context)
                guard let open = state.stack.popLast() else { return }
                let element = XMLElement(name: open.name, namespace: open.namespace, attributes: open.attributes, children: open.children,
                                         text: open.text.isEmpty ? "" : String(decoding: open.text, as: UTF8.self))
                if state.stack.isEmpty { state.root = element } else { state.stack[state.stack.count - 1].children.append(element) }
            }
            let characters: charactersSAXFunc = { context, bytes, length in
                let state = SAXState.of(context)
                guard !state.stack.isEmpty, let bytes, length > 0 else { return }
                state.stack[state.stack.count - 1].text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(length)))
            }
            handler.characters = characters
            handler.cdataBlock = characters
            handler.ignorableWhitespace = characters
            handler.reference = { context, _ in SAXState.of(context).fail(.entitiesRefused) }
            handler.entityDecl = { context, _, _, _, _, _ in SAXState.of(context).fail(.entitiesRefused) }
            handler.internalSubset = { context, _, _, _ in
                // A document type is allowed (some feeds carry one); entities in it are refused above.
                _ = context
            }
            return handler
        }()
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
