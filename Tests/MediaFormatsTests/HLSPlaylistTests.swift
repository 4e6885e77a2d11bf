import Foundation
@testable import MediaFormats
import Testing

@Suite("HLS playlists: what a radio relay reads of a station's master and media playlists")
struct HLSPlaylistTests {
    @Test("a master playlist: its variants, quoted attribute lists with commas inside, and the one a relay takes")
    func master() throws {
        let text = """
            \u{FEFF}#EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360
            video/high.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a.40.2"
            audio/128.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"
            audio/64.m3u8
            """
        guard case let .master(variants) = try HLSPlaylist.parse(Data(text.utf8)) else { Issue.record("not a master playlist"); return }
        #expect(variants.map(\.uri) == ["video/high.m3u8", "audio/128.m3u8", "audio/64.m3u8"])
        #expect(variants[0].codecs == "avc1.64001f,mp4a.40.2" && !variants[0].audioOnly && variants[1].audioOnly)
        #expect(HLSPlaylist.preferred(variants)?.uri == "audio/64.m3u8", "sound only, then the lowest bandwidth")
        // No codecs listed: the lowest bandwidth of all.
        let plain = [HLSPlaylist.Variant(uri: "a", bandwidth: 500, codecs: nil), HLSPlaylist.Variant(uri: "b", bandwidth: 200, codecs: nil)]
        #expect(HLSPlaylist.preferred(plain)?.uri == "b")
    }

    @Test("a media playlist: segments numbered from the media sequence, the initialization section, the end, and encryption")
    func media() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:1041
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:6.000,Song one
            seg-1041.m4s
            # a comment
            #EXTINF:5.5,
            https://cdn.example/seg-1042.m4s
            #EXT-X-ENDLIST
            """
        guard case let .media(media) = try HLSPlaylist.parse(Data(text.utf8)) else { Issue.record("not a media playlist"); return }
        #expect(media.targetDuration == 6 && media.ended && media.initialization == "init.mp4" && !media.encrypted)
        #expect(media.segments == [.init(uri: "seg-1041.m4s", duration: 6, sequence: 1041), .init(uri: "https://cdn.example/seg-1042.m4s", duration: 5.5, sequence: 1042)])
        // A media sequence after the segments began numbers nothing (found by the fuzz harness).
        let late = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-MEDIA-SEQUENCE:9\n#EXTINF:4,\nb.ts\n"
        guard case let .media(numbered) = try HLSPlaylist.parse(Data(late.utf8)) else { Issue.record("not a media playlist"); return }
        #expect(numbered.segments.map(\.sequence) == [0, 1])
        let locked = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\na.ts\n"
        guard case let .media(encrypted) = try HLSPlaylist.parse(Data(locked.utf8)) else { Issue.record("not a media playlist"); return }
        #expect(encrypted.encrypted && !encrypted.ended)
        let open = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=NONE\n#EXTINF:4,\na.ts\n"
        guard case let .media(clear) = try HLSPlaylist.parse(Data(open.utf8)) else { Issue.record("not a media playlist"); return }
        #expect(!clear.encrypted)
    }

    @Test("what is not a playlist, or asks too much, is refused with the reason", arguments: [
        ("<html>not a playlist</html>", "#EXTM3U"),
        ("#EXTM3U\n#EXTINF:4,\na.ts\n", "TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:forever,\na.ts\n", "EXTINF"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:nan,\na.ts\n", "EXTINF"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:-4\n", "TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:-1\n", "MEDIA-SEQUENCE"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n", "both"),
    ])
    func refused(text: String, reason: String) {
        #expect {
            try HLSPlaylist.parse(Data(text.utf8))
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }

    @Test("bytes that are not UTF-8, and playlists past the caps, are refused")
    func caps() {
        #expect(throws: MediaFormatsError.self) { try HLSPlaylist.parse(Data([0x23, 0x45, 0xFF, 0xFE, 0x0A])) }
        #expect(throws: MediaFormatsError.tooLarge("a playlist over 1 MB")) { try HLSPlaylist.parse(Data(count: HLSPlaylist.maximumBytes + 1)) }
        let many = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: "#EXTINF:1,\na.ts\n", count: HLSPlaylist.maximumEntries + 1)
        #expect(throws: MediaFormatsError.self) { try HLSPlaylist.parse(Data(many.utf8)) }
    }
}
