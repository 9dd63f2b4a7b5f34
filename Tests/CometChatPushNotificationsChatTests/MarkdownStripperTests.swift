import Testing
import CometChatPushNotificationsChat

@Suite struct MarkdownStripperTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("**bold** and __strong__", "bold and strong"),
        ("*italic* and _emphasis_", "italic and emphasis"),
        ("~~gone~~ here", "gone here"),
        ("***both***", "both"),
        ("`let x = *y*`", "let x = *y*"),
        ("run `rm -rf _tmp_` now", "run rm -rf _tmp_ now"),
        ("a lone ` backtick", "a lone ` backtick"),
        ("[CometChat](https://cometchat.com)", "CometChat"),
        ("see ![logo](https://x.test/a.png)", "see logo"),
        ("<https://cometchat.com>", "https://cometchat.com"),
        ("# Title", "Title"),
        ("### Smaller", "Smaller"),
        ("> quoted", "quoted"),
        ("- one\n- two", "• one\n• two"),
        ("* star item", "• star item"),
        ("1. first", "1. first"),
        ("```\ncode *here*\n```", "code *here*"),
        ("above\n---\nbelow", "above\nbelow"),
        ("snake_case_name stays", "snake_case_name stays"),
        ("2 * 3 * 4", "2 * 3 * 4"),
        ("\\*not italic\\*", "*not italic*"),
        ("price: 5\\_000", "price: 5_000"),
        ("**unclosed", "**unclosed"),
        ("emoji 🎉 **party**", "emoji 🎉 party"),
        ("", ""),
    ])
    func stripsMarkdown(input: String, expected: String) {
        #expect(PNMarkdownStripper.plainText(input) == expected)
    }
}
