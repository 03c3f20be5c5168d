"""Orders to the writer in a brief, told apart from orders to the readers in any shape.

A brief mixes what the text must tell its readers with what its writer must do: "Need
blurbs for the two new soups", "Name in bold, then two lines", "no prices", "Don't
mention integrations", "Friendly but not gushing", "Keep each under 40 words". Read as
facts, those end up in the checklist as items to *say*, and a text that pastes them back
covers them. Orders to the readers look the same on the surface ("Don't park in the
loading bay", "Keep your receipt", "Leave bikes in the rack"): what tells them apart is
what the order is about. An order to the writer is about the text: its words, its form,
its tone, what it leaves out; an order to the readers is about the world.

    order_kind(line) -> "request" | "leave_out" | "layout" | "length" | "tone" |
                        "no_guess" | None

Plain words and word lists, no model: the same line is read the same way every time.
"""

from __future__ import annotations

import re
from typing import Literal

from batch.judging.wording import content_terms, stem

OrderKind = Literal["request", "leave_out", "layout", "length", "tone", "no_guess"]

# what a text is made of: what "no X" and "leave X out" speak of when they speak of the
# text ("no prices", "no exclamation marks"), not of the world ("no dogs", "no parking")
_TEXT_PARTS = (
    r"(?:prices?|pricing|costs?|figures?|numbers?|names?|surnames?|jargon|emojis?|emoji|"
    r"hashtags?|exclamation(?:\s+marks?|\s+points?)?|links?|urls?|abbreviations?|acronyms?|"
    r"superlatives?|puns?|clich[eé]s?|slang|caps|capitals|quotes?|brand\s+names?|"
    r"comparisons?|promises?|claims?|buzzwords?|technical\s+terms?|specs?|statistics?|"
    r"stats|percentages?|dates?|times?|addresses?|phone\s+numbers?|email\s+addresses?|"
    r"headings?|bullets?|bullet\s+points?|lists?|tables?|small\s+print|legalese|fluff|"
    r"waffle|hype|marketing\s+speak|sales\s+talk|sign-?offs?|greetings?|mention\s+of|"
    r"references?\s+to|apolog(?:y|ies)|tips|tactics|mentions?|discussion|debate|background|"
    r"pitch|jokes?|humou?r|banter|slogans?|taglines?|adjectives|opinions?|speculation|"
    r"rumou?rs?|gossip|blame|excuses|scare\s+tactics|sightseeing(?:\s+tips)?|small\s+talk|"
    r"competitors?|competition|rivals?|other\s+brands?|brands?|"
    r"history|backstory|sales\s+pitch|calls?\s+to\s+action)"
)
# verbs only a writer is asked to do (or not to do) with a text
_WRITER_ONLY = (
    r"(?:mention|include|compare|name|say|list|quote|cite|refer|talk\s+about|bring\s+up|"
    r"state|promise|claim|reveal|disclose|guess|invent|make\s+up|make\s+(?:any|a)\s+"
    r"(?:claims?|promises?)|exaggerate|oversell|overdo|overstate|hype|gush|speculate|"
    r"describe|spoil|nag|grovel|lecture|preach|patroni[sz]e|overpromise|pressure|scare|"
    r"alarm|blame|moralise|moralize|dwell|call\s+(?:it|them|him|her)|use\s+(?:the\s+)?(?:word|words|term|terms|"
    r"phrase|phrases|jargon|emojis?|exclamation|caps|capitals|abbreviations?|acronyms?|"
    r"bullet|bullets|headings?|first\s+names?|surnames?|full\s+names?|we|I|you)|"
    r"write|add|put\s+(?:in|the)|go\s+into|dwell\s+on|make\s+it|sound|"
    r"apologi[sz]e|start\s+with|open\s+with|begin\s+with|end\s+with|finish\s+with|"
    r"close\s+with|lead\s+with|sign\s+off|address\s+(?:them|readers|people))"
)
_POLITE = r"(?:(?:please|pls|plz|kindly)\s+)?"
# what only a writer does too much of ("no comparing with other brands", "no grovelling")
_WRITER_GERUNDS = (
    r"comparing|comparisons|mentioning|naming|grovell?ing|gushing|overselling|waffling|"
    r"rambling|preaching|lecturing|nagging|guessing|promising|swearing|name-dropping|hyping|"
    r"exaggerating|repeating|quoting|scaremongering|moralising|moralizing|padding|"
    r"speculating|apologi[sz]ing|blaming|jargon|sales\s+talk|hard\s+sell"
)

_REQUEST = re.compile(
    r"(?i)^\W*(?:(?:hi|hey|hello)\b[^,.!:]{0,30}[,.!:-]\s*)?"
    r"(?:(?:for|on|about|re)\s+[^,]{2,60},\s+)?"
    r"(?:(?:could|can|would|will)\s+(?:you|u|someone|somebody|anyone|one\s+of\s+you)\s+"
    r"(?:please\s+|pls\s+)?(?:also\s+)?(?:mind\s+)?"
    r"|(?:please|pls|plz|kindly)\s+|(?:i|we)(?:['’]d|\s+would)\s+like\s+you\s+to\s+"
    r"|(?:quick|small|one)\s+(?:favour|favor|ask|job|request)\s*[-:,]?\s*)?"
    r"(?:write(?:\s+up)?|writing(?:\s+up)?|drafting|doing|putting\s+together|draft|do|"
    r"put\s+together|prepare|produce|create|compose|knock\s+up|"
    r"whip\s+up|pull\s+together|come\s+up\s+with|make|turn\s+(?:this|these|the)\b"
    r"[^.]{0,40}?\binto|rewrite|redo|need|needs|needed|want|wanted)\b"
    # "can we get a notice up about the boiler?", "could we have a blurb for the menu?"
    r"|^\W*(?:(?:could|can|would|will)\s+(?:we|you|u|someone|somebody|anyone)\s+"
    r"(?:please\s+)?(?:get|put|have)(?=\s+(?:a|an|the|some)\s))"
    r"|^\W*(?:(?:i|we)['’]d\s+like|(?:i|we)\s+(?:still\s+|also\s+|just\s+|really\s+)?"
    r"(?:need|want|would\s+like|are\s+after|am\s+after|are\s+looking\s+for|"
    # "after a blurb for …" asks; "After the move, any script …" says when
    r"am\s+looking\s+for)|looking\s+for|after(?=\s+(?:a|an|some|one|two)\b)|in\s+need\s+of|"
    r"need(?:s|ed)?)\b"
)
# a request's object: the text itself ("a note", "blurbs", "something", "copy")
_TEXT_NOUN = re.compile(
    r"(?i)\b(?:memo|email|e-mail|mail|note|notes|letter|announcement|message|post|"
    r"posts|description|descriptions|copy|text|page|section|blurb|blurbs|notice|"
    r"update|invitation|invite|reminder|newsletter|flyer|brochure|reply|answer|summary|"
    r"report|write-?up|release|press\s+release|card|label|listing|bio|blurb|intro|"
    r"introduction|paragraph|para|piece|item|article|statement|advert|ad|poster|sign|"
    r"leaflet|caption|script|something|few\s+lines|couple\s+of\s+lines|line|lines|words|"
    r"wording|thank[- ]you|thanks|welcome|follow-?up|round-?up|recap|digest|teaser|"
    r"tweet|social\s+post|menu|programme|program|itinerary|overview|outline|draft|"
    r"call\s+for\s+\w+|call-?out|appeal|listing)\b"
)
_LEAVE_OUT = re.compile(
    r"(?i)^\W*" + _POLITE + r"(?:(?:don'?t|do\s+not|never|no\s+need\s+to|avoid|without)\s+"
    r"(?:\w+\s+)?" + _WRITER_ONLY + r"\b"
    r"|(?:leave|keep)\s+(?:out|off)\b|leave\s+(?:[\w'’-]+\s+){1,5}?(?:out|off)\b"
    r"|no\s+[\w\s]{1,30}?\s+(?:named|mentioned|listed|quoted|shown|given)\b"
    r"|keep\s+(?:[\w'’-]+\s+){1,4}?out\s+of\s+(?:it|this|the\s+(?:text|copy|post|note))\b"
    r"|(?:(?:with\s+)?no|without|skip|omit|drop|avoid|nothing\s+(?:about|on)|not\s+a\s+word\s+about|"
    r"no\s+mention\s+of|no\s+talk\s+of)\s+(?:any\s+|the\s+|our\s+|their\s+|its\s+)?"
    r"(?:[\w'’-]+\s+){0,2}?" + _TEXT_PARTS + r"\b"
    r"|nothing\s+(?:about|on)\b|no\s+mention\s+of\b|not\s+a\s+word\s+(?:about|on)\b"
    r"|(?:with\s+)?no\s+(?:" + _WRITER_GERUNDS + r")\b|no\s+[\w'’-]+\s+mention\b"
    r"|(?:(?:she|he|they|we|i)['’]d\s+|(?:she|he|they|we|i)\s+would\s+)?(?:rather|prefer)\s+"
    r"(?:we|you|it)\s+(?:didn['’]?t|did\s+not|don['’]?t|not|never|wasn['’]?t)\b"
    # "Avoid mentioning the delay", "Steer clear of politics", "don't get into the costs"
    r"|(?:avoid|without|no)\s+(?:mentioning|naming|talking\s+about|referring\s+to|bringing\s+up|"
    r"discussing|going\s+into|getting\s+into|dwelling\s+on)\b"
    r"|steer\s+clear\s+of\b|stay\s+(?:away\s+from|off)\b|keep\s+off\b"
    # "Don't put Gary's mobile in", "don't include the fee"
    r"|(?:don['’]?t|do\s+not|never)\s+(?:put|include|print|show)\s+(?:[\w'’-]+\s+){0,4}?"
    r"(?:[\w'’-]+)(?:\s+(?:in|on|there))?\s*[.!]?$"
    r"|(?:don['’]?t|do\s+not|never)\s+(?:get\s+into|touch\s+on|go\s+there)\b)"
)
_NO_GUESS = re.compile(
    r"(?i)^\W*(?:just\s+|please\s+)?leave\s+(?:that|it|this|them|those|its\s+\w+|their\s+\w+|"
    r"the\s+\w+|a\s+(?:space|gap|blank|placeholder))(?:\s+for\s+(?:it|them|that))?\s+"
    r"(?:open|blank|empty|as\s+a\s+(?:gap|placeholder|blank)|for\s+now|for\s+later)\b"
    r"|^\W*(?:just\s+)?leave\s+a\s+(?:space|gap|blank|placeholder)\b"
    r"|\b(?:don'?t|do\s+not|never)\s+(?:put|fill|add|give|write)\s+(?:in\s+)?(?:a|an|any|the)\s+"
    r"(?:figure|date|number|name|time|price|amount|total|estimate|link|url)\b"
    r"|\b(?:don'?t|do\s+not|never|no)\s+(?:guess(?:ing)?|invent(?:ing)?|"
    r"make\s+(?:it|one|them|anything|something|a\s+\w+(?:\s+\w+)?)\s+up|making\s+(?:it|"
    r"anything)\s+up|speculat\w*|fill\s+(?:it|that|this)\s+in)\b"
)
_LENGTH = re.compile(
    r"(?i)\b(?:under|below|max(?:imum)?\.?|at\s+most|no\s+more\s+than|not\s+more\s+than|"
    r"up\s+to|less\s+than|fewer\s+than|within|around|about|roughly|approx\.?|"
    r"at\s+least|min(?:imum)?\.?|no\s+longer\s+than)?\s*\d+\s*(?:-\s*\d+\s*)?"
    r"(?:words?|lines?|sentences?|paragraphs?|characters?|chars?)\b"
    r"|\b(?:one|two|three|four|five|a|single)\s+(?:short\s+)?(?:lines?|sentences?|"
    r"paragraphs?|para)\b(?:\s+(?:each|max|only|tops|at\s+most))?"
    r"|\bkeep\s+(?:it|them|each(?:\s+\w+)?|the\s+\w+|things|this)\s+(?:short|brief|tight|"
    r"snappy|punchy|concise|to\s+the\s+point|under|below|to\b)"
    r"|^\W*(?:short|brief|concise|snappy)\s*(?:please|pls)?\W*$"
    # "Nothing longer than a tweet", "must fit on a postcard"
    r"|\b(?:no|nothing|not)\s+longer\s+than\s+(?:a|an|one|the)\b|\bshorter\s+than\s+(?:a|an|one)\b"
    r"|\b(?:fit|fits)\s+(?:on|in|onto|into)\s+(?:a|an|one|the)\s+(?:postcard|tweet|slide|"
    r"page|screen|text\s+message|sms|card|sticker|label)\b|\btweet-?length\b"
)
# what a text may be limited to ("decisions only", "just the facts", "practical only")
_SCOPE = (
    r"decisions|facts|essentials|basics|practical|practicalities|highlights|key\s+points|"
    r"headlines|outcomes|actions|dates|changes|news|main\s+points|logistics|details"
)
_LAYOUT = re.compile(
    # bold, italics, capitals of the text ("Name in bold", "bold the dates", "Title in
    # caps"); not "Bold flavours, slow-cooked", a thing of the world
    r"(?i)\bin\s+(?:bold|italics?|capitals|caps|block\s+capitals|upper\s*case)\b"
    r"|\b(?:bold|italici[sz]e|capitali[sz]e|underline)\s+(?:the|each|all|every|its|their|any)\b"
    r"|\b(?:bolded|italici[sz]ed|capitali[sz]ed|underlined)\b"
    r"|\b(?:bold|italic|capital|block)\s+(?:headings?|titles?|names?|dates?|times?|prices?|"
    r"text|letters|capitals|type|font)\b"
    r"|^\W*(?:bold|italics?|capitals|caps|block\s+capitals|all\s+caps)(?:\s+(?:please|pls))?\W*$"
    r"|\b(?:as\s+(?:a|the)\s+)?(?:heading|headline|subheading|sub-heading|title\s+line)\b"
    r"|\bbullet(?:s|\s+points?|ed)?\b|\bnumbered\s+list\b|\bas\s+a\s+list\b"
    r"|\b(?:start|open|begin|end|finish|close|lead)\s+(?:it\s+|each\s+\w+\s+)?with\b"
    r"|\bsign\s+(?:it\s+)?off\b|\bthen\s+(?:a|one|two|three|\d+)\s+(?:short\s+)?"
    r"(?:lines?|sentences?)\b|\bat\s+the\s+(?:top|bottom|end|start)\b"
    r"|\bin\s+(?:the\s+)?(?:first|second|last|opening|closing)\s+(?:line|sentence|paragraph)\b"
    r"|\bone\s+(?:per|for\s+each)\b|\beach\s+(?:on|in)\s+its\s+own\b|\bsubject\s+line\b"
    r"|\bsections?\b|\bin\s+a\s+list\b|\blist\s+(?:them|it|the\s+\w+\s+)?by\b"
    r"|^\W*(?:third|first|second)\s+person\b(?!\s+(?:to|who|that|in\s+line|gets?|wins?|"
    r"through|past|at|on|there)\b)|^\W*(?:apologi[sz]e|say\s+sorry)\s+(?:once|briefly|"
    r"sincerely|first|up\s+front|at\s+the\s+start|only\s+once)\b"
    r"|^\W*(?:just|only)\s+(?:the\s+)?(?:" + _SCOPE + r")\b|^\W*(?:" + _SCOPE + r")\s+only\b"
    r"|\bfirst,?\s+then\s+(?:the\s+)?[a-z]+\b(?![^.]*\d)"
    r"|^\W*(?:the\s+)?(?:" + _SCOPE + r"|date|price|headline|good\s+news|bad\s+news)\s+first\W*$"
    r"|^\W*(?:please\s+)?(?:write|aim|pitch|target|gear|angle)\s+(?:it|this|the\s+\w+)\s+"
    r"(?:at|for|to(?:wards)?)\s+"
)
_TONE_WORDS = frozenset(
    [
        "friendly",
        "warm",
        "upbeat",
        "cheerful",
        "formal",
        "informal",
        "casual",
        "chatty",
        "professional",
        "plain",
        "simple",
        "clear",
        "concise",
        "short",
        "brief",
        "punchy",
        "snappy",
        "calm",
        "reassuring",
        "apologetic",
        "sincere",
        "positive",
        "light",
        "fun",
        "playful",
        "serious",
        "respectful",
        "polite",
        "gentle",
        "firm",
        "neutral",
        "factual",
        "enthusiastic",
        "gushing",
        "salesy",
        "pushy",
        "corporate",
        "stuffy",
        "stiff",
        "jokey",
        "cheesy",
        "cute",
        "quirky",
        "witty",
        "dry",
        "honest",
        "humble",
        "confident",
        "excited",
        "exciting",
        "welcoming",
        "inviting",
        "personal",
        "human",
        "conversational",
        "relaxed",
        "sober",
        "measured",
        "grown-up",
        "grown",
        "adult",
        "kind",
        "empathetic",
        "caring",
        "supportive",
        "encouraging",
        "optimistic",
        "hopeful",
        "tone",
        "voice",
        "style",
        "register",
        "british",
        "american",
        "english",
        "spelling",
        "spellings",
        "us",
        "uk",
        "jargon-free",
        "gushy",
        "breezy",
        "lively",
        "elegant",
        "classy",
        "understated",
        "overblown",
        "effusive",
        "fluffy",
        "flowery",
        "over",
        "top",
        "hard",
        "sell",
        "sell-y",
        "salesey",
        "too",
        "not",
        "but",
        "and",
        "very",
        "bit",
        "little",
        "please",
        "pls",
        "tone:",
        "nothing",
        "overly",
        "overly-formal",
        "alarmist",
        "alarming",
        "scary",
        "preachy",
        "pushy",
        "naggy",
        "nagging",
        "grovelling",
        "groveling",
        "defensive",
        "chirpy",
        "patronising",
        "patronizing",
        "condescending",
        "language",
        "lang",
        "plain-english",
        "reassurance",
        "practical",
        "matter-of-fact",
        "upbeat-ish",
        "heartfelt",
        "grateful",
        "thankful",
        "appreciative",
        "cheerful",
        "sympathetic",
        "compassionate",
        "sensitive",
        "tactful",
        "clear-cut",
        "straightforward",
        "direct",
        "third",
        "person",
        "first",
        "tone-wise",
        "keep",
        "light-hearted",
        "lighthearted",
    ]
)
# who a tone is for, allowed at its end: "Plain English for families"
_TONE_FOR = re.compile(
    r"(?i)[,\s]+(?:for\s+)?(?:families|kids|children|parents|beginners|everyone|staff|"
    r"customers|guests|locals|visitors|members|donors|readers|non-experts|laypeople|"
    r"a\s+general\s+audience)(?:,?\s+(?:please|pls))?\s*[.!]?$"
)
# "Make it formal", "Please write it in plain English", "keep it light": the order's
# frame, off before its tone is read
_TONE_FRAME = re.compile(
    r"(?i)^\W*(?:please\s+|pls\s+)?(?:write|make|keep|do|put|have|want|pitch|set)\s+"
    r"(?:it|this|them|the\s+\w+)\s+(?:in\s+|as\s+|a\s+bit\s+|nice\s+and\s+|at\s+)?"
)
_ABOUT_TEXT = re.compile(
    r"(?i)\b(?:it|this|the\s+(?:text|copy|note|post|blurbs?|memo|email|letter|notice|"
    r"card|release|piece|page|section|label|listing|bio|reply|summary|update|message|"
    r"description|wording|advert|intro)|each(?:\s+(?:one|blurb|item|entry|bit|line|"
    r"paragraph|post))?)\b"
)


# A statement about the world in a layout order's words ("The headline act is Mavis
# Staples", "Our bold new menu starts on 3 May", "The park has three sections"): a
# subject of its own, whose head is a thing and not a part of the text, and a verb.
_WORLD_STATEMENT = re.compile(
    r"(?i)^\W*(?:the|our|their|its|his|her|a|an|this|these|that|(?-i:[A-Z])[\w'’-]*['’]s)\s+"
    r"(?P<subject>(?:[\w'’-]+\s+){0,4}?)"
    r"(?:is|are|was|were|has|have|had|opens?|starts?|runs?|comes?|closes?|costs?|features?|"
    r"includes?|offers?|takes?|gets?|goes|stays?|moves?|begins?|ends?|plays?|sells?|serves?|"
    r"performs?|pays?|rises?|falls?|will|can)\b"
)
# the words that name the text or a part of it ("the name", "each blurb", "Length:")
TEXT_PARTS = (
    r"text|copy|names?|titles?|headings?|headlines?|prices?|dates?|lines?|words?|list|intro|"
    r"opening|closing|sign-off|subject|it|each|first|last|one|bit|part|paragraphs?|"
    r"sentences?|blurbs?|posts?|notes?|notice|email|letter|message|page|length|max(?:imum)?|"
    r"limit|size|tweets?|captions?|descriptions?|summary|bio|label"
)
_TEXT_PART = re.compile(r"(?i)^(?:" + TEXT_PARTS + r")$")


# the same with no determiner, a subject of two words at least ("Headline sponsor is
# Kettleworks"; "Heading is bold" names a part of the text)
_BARE_WORLD_STATEMENT = re.compile(
    r"(?i)^\W*(?P<subject>(?:(?!(?:at|of|in|on|the|a|an|to|for|by|with|it|set|put|make)\b)"
    r"[\w'’-]+\s+){2,4}?)"
    r"(?:is|are|was|were|has|have|opens?|starts?|runs?|costs?|features?|includes?|offers?|"
    r"comes?|closes?|plays?|sells?|serves?|performs?|pays?|rises?|falls?|will|can)\b"
)


def _states_of_the_world(text: str) -> bool:
    said = _WORLD_STATEMENT.match(text) or _BARE_WORLD_STATEMENT.match(text)
    if not said or not said.group("subject").strip():
        return False
    head = said.group("subject").split()[-1]
    return not _TEXT_PART.match(head)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", text.lower())


# how the text should come across, or whose style or words it takes: "Should sound warm
# but professional", "Make it sound exciting", "Use British spelling", "Use 'we' not
# 'the company'", "Address them as 'you'", "Readable for 10-year-olds", "Same style as
# last month's", "Match the tone of our website"
_MANNER = re.compile(
    r"(?i)^\W*(?:please\s+|pls\s+)?(?:"
    r"(?:it\s+|this\s+|the\s+\w+\s+)?(?:should|must|needs?\s+to|has\s+to|ought\s+to)\s+"
    r"(?:sound|read|feel|come\s+across|look)\b"
    r"|(?:make|have|get)\s+(?:it|this|them|the\s+\w+)\s+(?:sound|read|feel|come\s+across|look)\b"
    r"|(?:use|write\s+in|stick\s+to|go\s+with)\s+(?:british|uk|us|american|english)\s+"
    r"(?:spelling|english)\b|(?:british|uk|us|american)\s+(?:spelling|english)\b"
    r"|(?:use|say|write)\s+[\"'‘“][^\"'’”]{1,30}[\"'’”]\s+(?:not|rather\s+than|instead\s+of)\b"
    r"|(?:address|call|refer\s+to)\s+(?:them|the\s+readers?|readers|people|customers|everyone|"
    r"guests|staff|members|parents)\s+(?:as|by)\b"
    r"|(?:readable|understandable|suitable|accessible|pitched|aimed|written|easy\s+to\s+"
    r"(?:read|follow|understand))\s+(?:for|at|by)\b"
    r"|(?:same|similar)\s+(?:style|tone|format|layout|feel|voice)\s+(?:as|to)\b"
    r"|(?:match|follow|copy)\s+(?:the\s+)?(?:tone|style|voice|format|feel)\s+(?:of|on|in)\b"
    r"|in\s+the\s+(?:style|tone|voice)\s+of\b)"
)
# where the text will go, said of it: "it's going on a poster", "this goes in the
# newsletter" (the writer's to know; nothing to tell the readers)
_GOES_ON = re.compile(
    r"(?i)^\W*(?:it['’]s|it\s+is|this\s+is|this['’]s|it['’]ll\s+be|it\s+will\s+be|it|this|"
    r"they['’]re|they\s+are)\s+(?:going\s+|goes\s+|go\s+|printed\s+|pinned\s+|posted\s+)?"
    r"(?:up\s+)?(?:on|in|for|into|onto)\s+(?:the|a|an|our)\s+(?:\w+\s+)?(?:poster|noticeboard|"
    r"notice\s+board|newsletter|website|site|intranet|flyer|leaflet|menu|board|window|socials|"
    r"instagram|facebook|linkedin|app|fridge|door|wall|screen|slide|handout|programme|"
    r"brochure|bulletin|blog|email|mailing)\b"
)


def is_tone(text: str) -> bool:
    """A line that is only a tone: "Friendly but not gushing.", "British spelling pls",
    "warm, plain English", "Make it formal", "Plain English for families"."""
    if _MANNER.match(text):
        return True
    words = _words(_TONE_FOR.sub("", _TONE_FRAME.sub("", text)))
    if not words or re.search(r"\d", text):
        return False
    toned = [w for w in words if w in _TONE_WORDS]
    core = [
        w
        for w in toned
        if w
        not in {"not", "but", "and", "very", "bit", "little", "please", "pls", "too", "over", "top"}
    ]
    return bool(core) and len(toned) == len(words) and len(words) <= 10


def is_text_request(value: str) -> bool:
    """A phrase naming the text asked for ("safety recall notice", "website blurb for
    the Full Service package"): a text noun among its first words."""
    noun = _TEXT_NOUN.search(value)
    return noun is not None and len(value[: noun.start()].split()) <= 3


def is_request(text: str) -> bool:
    """A request for the text: its verb, then what it asks for within a few words ("Need
    blurbs for…", "Could you write a note…"; not "Need everyone to update the CRM")."""
    found = _REQUEST.match(text)
    if not found:
        return False
    noun = _TEXT_NOUN.search(text, found.end())
    if noun is None:
        return False
    # a name may stand between, whatever its length: "write the Hollow Lane Community
    # Garden item for…"
    between = text[found.end() : noun.start()].split()
    plain = [w for w in between if not w[:1].isupper() and not w[:1].isdigit()]
    return len(plain) <= 4 and len(between) <= 9


_RANK: dict[str, int] = {"leave_out": 5, "no_guess": 4, "length": 3, "layout": 2, "tone": 1}
_ORDER_PIECES = re.compile(r"(?i),\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+(?=no\b|not\b|don)")


def order_kind(line: str) -> OrderKind | None:
    """What kind of order to the writer `line` is, or None: a fact, an order to the
    readers, or anything else. A line of several orders ("Friendly, don't nag";
    "Cheerful, but no exclamation marks") is the strongest of them."""
    text = re.sub(r"(?i)\bw/\s*", "with ", line.strip())
    if not text:
        return None
    kind = _one_order(text)
    if kind is not None:
        return kind
    pieces = [p for p in _ORDER_PIECES.split(text) if p.strip(" .")]
    if len(pieces) > 1:
        kinds = [_one_order(p.strip()) or ("tone" if is_tone(p) else None) for p in pieces]
        known = [k for k in kinds if k is not None]
        if len(known) == len(kinds) and "request" not in known:
            return max(known, key=lambda k: _RANK[k])
    return None


_NOT_YET = re.compile(r"(?i)\b(?:yet|so\s+far|for\s+now)\s*[.!]?$|\bTB[CDA]\b")
# "no finish date yet; leave a gap for it": a fact not known, then what to do about it
_NO_X_YET = re.compile(r"(?i)^\W*no\s+(?:[\w'’-]+\s+){0,3}?yet\b")


# an aside on how much a part matters, for the writer to stress it, not for the readers:
# "that's the bit people always miss", "people always forget this", "this is the
# important part"
_EMPHASIS_BODY = (
    r"(?:and\s+|but\s+)?(?:(?:(?:that|this|it)(?:['’]s|\s+is)|is)\s+(?:the\s+)?(?:"
    r"(?:bit|part|thing|one|step)\s+(?:that\s+)?(?:people|everyone|everybody|folk|most\s+people|"
    r"they|residents|customers|guests|parents|staff)\s+(?:always|usually|often|tends?\s+to|"
    r"keep|never)\s*(?:miss|forget|skip|overlook|ignore|get\s+wrong|mess\s+up)\w*|"
    r"(?:important|key|main|crucial|vital)\s+(?:bit|part|thing|one))|"
    r"(?:people|everyone|everybody|folk|they)\s+(?:always|usually|often|keep|tends?\s+to)\s+"
    r"(?:miss|forget|skip|overlook|ignore|get)\w*\s+(?:this|that|it)(?:\s+wrong)?)\s*[.!]*$"
)
_EMPHASIS = re.compile(r"(?i)^\W*" + _EMPHASIS_BODY)
_EMPHASIS_TAIL = re.compile(r"(?i)\s*(?:[,;]|\s[-–—])\s*(?=" + _EMPHASIS_BODY + ")")


def emphasis_split(clause: str) -> list[str]:
    """A clause with an aside for the writer at its end, as the clause and the aside:
    "Leave your bin out by 7am, that's the bit people always miss" -> ["Leave your bin
    out by 7am", "that's the bit people always miss"]."""
    found = _EMPHASIS_TAIL.search(clause)
    if found is None or not clause[: found.start()].strip():
        return [clause]
    return [clause[: found.start()].strip(), clause[found.end() :].strip()]


def _one_order(text: str) -> OrderKind | None:
    if _NO_GUESS.search(text) and not _REQUEST.match(text):
        return "no_guess"
    if _EMPHASIS.match(text):
        return "tone"
    if _LEAVE_OUT.match(text) and not _NOT_YET.search(text) and not _NO_X_YET.match(text):
        # ("no date yet" is a fact not known, not an order to leave the date out)
        return "leave_out"
    if is_request(text) or _GOES_ON.match(text):
        return "request"
    if _LENGTH.search(text) and (
        re.search(
            r"(?i)\bwords?\b|\bkeep\b|\beach\b|\bmax\b|\bunder\b|\btops\b|\blonger\b|"
            r"\bshorter\b|\bfits?\b|\btweet-?length\b",
            text,
        )
        # a short line that is only a length ("One short paragraph"), not a fact that
        # counts something else ("new passwords need at least 14 characters")
        or (
            len(_words(text)) <= 6
            and re.match(r"(?i)^\W*(?:\d|one|two|three|a|single|short|<)", text)
        )
    ):
        return "length"
    if is_tone(text):
        return "tone"
    if (
        _LAYOUT.search(text)
        and (_ABOUT_TEXT.search(text) or len(_words(text)) <= 8)
        and not _states_of_the_world(text)
    ):
        return "layout"
    return None


# ", so don't guess it" after a fact not known yet: the writer's order, the fact's cue
NO_GUESS_TAIL = re.compile(
    r"(?i)[,;:]?\s*(?:-|–|—)?\s*(?:so|and|but|just)?\s*" + _POLITE + r"(?:don'?t|do\s+not|"
    r"never|no)\s+(?:guess(?:ing)?|invent(?:ing)?|speculat\w*|make\s+(?:it|one|them|"
    r"anything|something)\s+up|making\s+(?:it|anything)\s+up)\b(?:\s+(?:it|them|that|this|"
    r"one|anything|at\s+it))?(?:\s+(?:pls|please))?\s*[.!]*\s*$"
)
# where a request hands over what the text is to say: "Write a note that X", "a memo
# saying X", "an email telling everyone that X", "Write a notice: X"
_REQUEST_CONTENT = re.compile(
    r"(?i)(?::\s+|\s+[-–—]\s+|\b(?:please|pls),\s+|,(?![^()]*\))\s+|,\s+(?=(?:it|there|they|he|she|we)['’]|"
    r"(?:his|her|their|its|our|the|this|it|there|he|she|they|we)\s|from\s|on\s|[\w'’-]+(?:\s+[\w'’-]+){0,3}\s+"
    r"(?:is|are|was|were|will|goes|go|moves|starts|opens|closes|runs|costs|has|have|came|"
    r"arrived|had|did|got|broke|needs?)\b)|\s+(?:that|saying(?:\s+that)?|to\s+say(?:\s+that)?|which\s+says(?:\s+that)?|"
    r"explaining(?:\s+that)?|announcing(?:\s+that)?|"
    r"(?:telling|informing|warning|notifying)\s+(?:them|everyone|everybody|all|"
    r"people|staff|readers|customers|guests|members|residents|parents|the\s+\w+)"
    r"(?:\s+that)?|(?:to\s+)?let(?:ting)?\s+(?:them|everyone|everybody|people|staff|"
    r"readers|customers|guests|members|residents|parents|the\s+\w+)\s+know(?:\s+that)?)\s+)"
)


def request_split(line: str) -> tuple[str, str] | None:
    """A request that carries what the text must say, as (the request, what it says):
    "Write a note that the kitchen closes on Friday" -> ("Write a note", "the kitchen
    closes on Friday"). None for a request that carries nothing ("Could you write a
    note for the staff kitchen?") and for a line that is no request."""
    noun = _TEXT_NOUN.search(line)
    if not noun:
        return None
    for found in _REQUEST_CONTENT.finditer(line, noun.end()):
        if not line[found.end() :].strip(" .,:;-"):
            continue
        between = line[noun.end() : found.start()]
        if between.count("(") > between.count(")"):
            continue  # inside an aside in brackets
        listed = re.search(r"\([^()]*;[^()]*\)", between)
        if listed:
            # "…giving October's games as a list by date (Sat 5 Oct home v Hillcrest,
            # 10am; Sat 12 Oct away …), saying …": the list is what the text says
            start = noun.end() + listed.start()
            return line[:start].strip(" ,:;-"), line[start:].strip()
        # the text noun, perhaps who it is for ("a note for the staff"), then what it
        # says; not a relative clause of some later noun ("blurbs for the soups that
        # are new")
        if found.group(0).strip().lower() == "that" and len(between.split()) > 6:
            continue
        if found.group(0).strip() == "," and _WHERE_IT_GOES.match(
            line[found.end() :].split(",")[0].strip()
        ):
            continue  # "Write a note, for the staff kitchen, that …"
        break
    else:
        return None
    content = line[found.end() :].strip()
    if found.group(0).strip() == "," and _APPOSITION.match(content):
        return None  # "… for Ledgerly 3.2, our invoicing app, for our customers."
    return line[: found.start()].strip(" ,:;-"), content


# what follows a request's comma when it names the subject again and its readers: no
# content of its own ("our invoicing app, for our customers")
_APPOSITION = re.compile(
    r"(?i)^(?:our|their|its|the|a|an|your)\s+[\w'’-]+(?:\s+[\w'’-]+){0,3}\s*,?\s*"
    r"(?:for|to)\s+(?:our|the|all|its|their|your)?\s*[\w'’-]+(?:\s+[\w'’-]+){0,2}\s*\.?$"
)


# where a request's text goes, or whom for, after its comma: "for the website?", "for
# the staff noticeboard", "on Instagram"
_WHERE_IT_GOES = re.compile(r"(?i)^(?:for|on|in|to)\s+(?:[^\W\d]+\s*){1,4}[.?!]?$")


# amounts of money ("£7.50", "7 pounds", "€18,000", "$5", "50p")
MONEY = re.compile(
    r"(?i)(?:£|\$|€|\b(?:EUR|GBP|USD)\s?)\s?\d[\d,]*(?:\.\d+)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:pounds?|quid|euros?|dollars?|pence|GBP|EUR|USD)\b"
    r"|\b\d+p\b"
)
# what "no prices" speaks of
PRICE_WORDS = frozenset(
    stem(w)
    for w in [
        "price",
        "prices",
        "pricing",
        "cost",
        "costs",
        "fee",
        "fees",
        "charge",
        "rate",
        "rates",
    ]
)
# the words of a leave-out order that are the order, not what it leaves out
_ORDER_WORDS = frozenset(
    stem(w)
    for w in [
        "don't",
        "dont",
        "do",
        "not",
        "never",
        "mention",
        "mentioning",
        "name",
        "naming",
        "say",
        "include",
        "list",
        "quote",
        "cite",
        "refer",
        "talk",
        "about",
        "bring",
        "up",
        "state",
        "give",
        "leave",
        "out",
        "off",
        "no",
        "any",
        "pls",
        "please",
        "skip",
        "omit",
        "drop",
        "avoid",
        "nothing",
        "word",
        "words",
        "call",
        "use",
        "put",
        "in",
        "spoil",
        "reveal",
        "away",
        "print",
        "publish",
        "share",
        "how",
        "many",
        "much",
        "exact",
        "figure",
        "detail",
        "details",
        "rather",
        "we'd",
        "she'd",
        "he'd",
        "they'd",
        "prefer",
        "obviously",
        "just",
        "keep",
        "text",
        "note",
        "letter",
        "post",
        "copy",
        "label",
        "blurb",
        "blurbs",
        "notice",
        "the",
        "our",
        "their",
        "its",
        "her",
        "his",
        "it",
        "them",
        "that",
        "this",
        "these",
        "those",
        "also",
        "anything",
        "listing",
        "menu",
    ]
)
_LEAVE_CUE = re.compile(
    r"(?i)(?:don['’]?t|do\s+not|never|no|leave|without|avoid|skip|omit|nothing|rather|"
    r"keep\s+\w+\s+out)\b"
)


def left_out(order: str) -> tuple[set[str], str]:
    """What a leave-out order speaks of, as words ("Don't mention her salary": {"salari"}),
    and what it gives to be left out: the part before its cue, and what it says in
    brackets or after a colon ("It's made by Kaiyo Appliances, but don't name the
    manufacturer": "It's made by Kaiyo Appliances"; "Don't say how anyone voted (the
    vote was 4 to 3)": "the vote was 4 to 3")."""
    cue = _LEAVE_CUE.search(order)
    before, after = (order[: cue.start()], order[cue.start() :]) if cue else ("", order)
    given = " ".join([before, *re.findall(r"\(([^)]*)\)", after)])
    tail = ""
    if ":" in after:
        head, _, tail = after.partition(":")
        after, given = head, f"{given} {tail}"
    about = set(content_terms(re.sub(r"\([^)]*\)?", " ", after))) - _ORDER_WORDS
    if not about and tail:
        # "Leave out: the prices": what it leaves out is named after the colon
        about = set(content_terms(re.sub(r"\([^)]*\)?", " ", tail))) - _ORDER_WORDS
    return about, given
