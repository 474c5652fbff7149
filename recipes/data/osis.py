"""A Bible verse's words from its OSIS markup, as the SWORD modules of
`recipes.data.sword` store it.

`clean`: a verse's text is what is left when each
`<note>` (footnotes, cross-references, with their `<reference>`,
`<catchWord>`, `<rdg>`), `<title>` (Psalm superscriptions, which the KJV
and NRSVA versifications do not count as verse 1, the WEB's Psalm 119
letters, the KJV's colophons to the epistles) and `<speaker>` (the WEB's
"Beloved" in the Song of Songs) is replaced by a space, the tags around
words (`<w>` with Strong's numbers, `<transChange>`: the KJV's italics,
words the translators added, kept; `<divineName>`, `<q>`, `<seg>`,
`<name>`, `<foreign>`) are dropped, other tags (`<l>`, `<lg>`, `<lb>`,
`<div>`, `<chapter>`, `<list>`, `<item>`, `<milestone>`) become spaces;
entities are unescaped, the KJV's `¶` and stray USFM markers (`\\nd`, in
27 verses) removed, whitespace collapsed and a space before `,.;:!?)]`
(after a footnote) removed. What follows a `<div type="book">`'s end is
not the verse's: the WEB's 26 kB glossary, after Revelation 22:21, is
left out.
"""

import html
import re

# Elements whose content is not verse text (none nests in these modules;
# a note inside a title goes with the title).
_DROPPED = re.compile(r"<(note|title|speaker)\b[^>]*(?<!/)>.*?</\1>", re.S)
_BOOK_END = re.compile(r'<div\b(?=[^>]*\btype="book")(?=[^>]*\beID=).*', re.S)
_TAG = re.compile(r"<(/?)([A-Za-z]*)[^>]*?(/?)>")
# Tags around words or parts of words: dropped without a space.
_INLINE = set("w transChange divineName q seg name foreign hi".split())
_SPACE_BEFORE = re.compile(r" (?=[,.;:!?)\]])")
_STRAY = re.compile(r"¶|\\\+?[a-z]+[0-9]*\*?")  # `\nd`: USFM left in the KJV


def _tag(match):
    return "" if match[2] in _INLINE and not match[3] else " "


def clean(markup):
    """A verse's words from its OSIS markup (the module docstring says
    how)."""
    text = _DROPPED.sub(" ", _BOOK_END.sub(" ", markup))
    text = _STRAY.sub(" ", html.unescape(_TAG.sub(_tag, text)))
    return _SPACE_BEFORE.sub("", " ".join(text.split()))
