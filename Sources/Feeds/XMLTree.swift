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
        guard let text = child(name, namespace)?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }
}

enum XMLTree {
    /// Elements deeper than this are an attack or a mistake, not a feed.
    static let maximumDepth = 64
    /// Elements in one document.
    static let maximumElements = 2_000_000

    static func parse(_ data: Data) throws -> XMLElement {
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
        var count = 0
        return try element(root, depth: 0, count: &count)
    }

    /// Whether a `<!DOCTYPE …>` declares any `<!ENTITY`: looked for between the doctype and the
    /// end of its internal subset (`]>`), so a feed that merely mentions the word elsewhere passes.
    static func declaresEntities(_ data: Data) -> Bool {
        guard let doctype = data.firstRange(of: Data("<!DOCTYPE".utf8)) else { return false }
        let rest = data[doctype.upperBound...]
        let end = rest.firstRange(of: Data("]>".utf8))?.lowerBound ?? rest.firstRange(of: Data(">".utf8))?.lowerBound ?? data.endIndex
        return rest[..<end].firstRange(of: Data("<!ENTITY".utf8)) != nil
    }

    private static func element(_ node: xmlNodePtr, depth: Int, count: inout Int) throws -> XMLElement {
        count += 1
        guard depth < maximumDepth else { throw FeedError.malformed("elements nested more than \(maximumDepth) deep") }
        guard count <= maximumElements else { throw FeedError.tooLarge }
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        let namespace = node.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) } ?? ""
        var attributes: [String: String] = [:]
        var attribute = node.pointee.properties
        while let current = attribute {
            if let key = current.pointee.name.map({ String(cString: $0) }), let value = xmlNodeGetContent(UnsafeMutablePointer(OpaquePointer(current))) {
                // xml:base and other prefixed attributes keep their prefix-free name; the first wins.
                if attributes[key] == nil { attributes[key] = String(cString: value) }
                reverie_xml_free(value)
            }
            attribute = current.pointee.next
        }
        var children: [XMLElement] = []
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(try element(current, depth: depth + 1, count: &count))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            case XML_ENTITY_REF_NODE:
                throw FeedError.entitiesRefused
            default:
                break
            }
            child = current.pointee.next
        }
        return XMLElement(name: name, namespace: namespace, attributes: attributes, children: children, text: text)
    }
}
