"""Messages written wholly or in part in Japanese or Chinese.

The reader finds values by the spaces and the Latin punctuation around them, and Japanese and Chinese
have neither: "実験者：佐藤健太（Sato Kenta）、所属：京都大学。" is one run of word characters to it. `spaced`
rewrites such a message so that the reader's patterns apply: full-width punctuation becomes its Latin
form followed by a space, a label's topic particle ("所属は名古屋大学", "单位是中山大学") becomes a colon,
the polite ending of a sentence ("…記録です。") goes, and "の"/"的" after the name of an institution
("東京大学の鈴木美咲", "浙江大学的刘洋") is read as the comma an English writer would put there. The words
themselves stay as written, so a value read from the rewritten text is the user's own (京都大学,
"マウス海馬CA1からのin vivoパッチクランプ記録").

The rest is what the other readers take in: the labels, the words for the sex and the units of an
age (normalizers.py holds the species and what each unit means), the names of institutions
("京都大学", "我是浙江大学") and the names written in characters with their romanisation after them
("山田太郎（Yamada Taro）"), which the stored value takes.
"""

from __future__ import annotations

import re

from conversions.nwb.family_first import KOREAN_FAMILY_NAMES, family_name_first, known_family_name
from conversions.nwb.normalizers import EAST_ASIAN_AGE_UNITS

# Han characters, kana and the full-width forms: a message holding none is left as it is.
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff01-\uff5e\uac00-\ud7af]")
_KANA = r"\u30a0-\u30ff"
_HAN = r"\u3400-\u9fff\uf900-\ufaff"

# Full-width punctuation and its Latin form; a space follows it where a word follows.
_PUNCTUATION = {
    "：": ":",
    "，": ",",
    "、": ",",
    "。": ".",
    "；": ";",
    "！": "!",
    "？": "?",
    "（": "(",
    "）": ")",
    "「": '"',
    "」": '"',
    "『": '"',
    "』": '"',
    "～": "~",
    "〜": "~",
    "　": " ",
}
_OPENING = frozenset("（「『")
_PUNCTUATION_RE = re.compile("|".join(map(re.escape, _PUNCTUATION)))

# What a label names, as Japanese and Chinese forms write it ("実験者：", "单位：", "個体ID：").
LABELS: dict[str, str] = {
    **dict.fromkeys(
        [
            "実験者",
            "实验者",
            "記録者",
            "记录者",
            "记录人",
            "記錄人",
            "記録人",
            "測定者",
            "实验人员",
            "実施者",
            "研究者",
            "실험자",
            "기록자",
        ],
        "experimenter",
    ),
    **dict.fromkeys(
        [
            "所属",
            "所属機関",
            "所属先",
            "研究機関",
            "機関",
            "单位",
            "所属单位",
            "單位",
            "机构",
            "研究单位",
            "기관",
            "소속",
        ],
        "institution",
    ),
    **dict.fromkeys(
        [
            "実験",
            "実験内容",
            "実験概要",
            "研究内容",
            "实验",
            "实验内容",
            "实验描述",
            "實驗",
            "實驗內容",
            "실험",
            "실험 내용",
        ],
        "experiment_description",
    ),
    **dict.fromkeys(
        [
            "個体ID",
            "個体番号",
            "動物ID",
            "動物番号",
            "マウスID",
            "マウス番号",
            "ラットID",
            "ラット番号",
            "被験者ID",
            "患者ID",
            "个体编号",
            "动物编号",
            "动物ID",
            "小鼠编号",
            "小鼠ID",
            "大鼠编号",
            "大鼠ID",
            "被试编号",
            "患者编号",
        ],
        "subject_id",
    ),
    **dict.fromkeys(["動物種", "生物種", "種", "物种", "种属", "動物", "动物"], "species"),
    **dict.fromkeys(["性別", "性别"], "sex"),
    **dict.fromkeys(["年齢", "年龄", "週齢", "月齢", "日齢", "周龄"], "age"),
    **dict.fromkeys(["系統", "品系", "系统", "遺伝子型", "基因型"], "strain"),
    **dict.fromkeys(["記録部位", "记录部位", "脳領域", "脑区", "記録領域", "记录脑区"], "location"),
    **dict.fromkeys(["研究室", "ラボ", "课题组", "实验室"], "lab"),
    **dict.fromkeys(["キーワード", "关键词", "關鍵詞"], "keywords"),
}
_LABEL_WORDS = "|".join(sorted(LABELS, key=len, reverse=True))
_EXPERIMENTER_LABELS = tuple(label for label, name in LABELS.items() if name == "experimenter")
# "所属は名古屋大学", "单位是中山大学": the topic particle or copula after a label introduces its value;
# but "实验是我自己做的" ("the experiment I did myself") says who, and gives no description.
_LABEL_TOPIC_RE = re.compile(
    rf"(?<![{_HAN}{_KANA}\w])(?P<label>{_LABEL_WORDS})(?:は|是|为|為)(?!我|私|自分|僕|俺|本人)"
)
# The polite endings of a Japanese sentence ("…記録です。", "…行いました。" stays: it is a verb).
_POLITE_END_RE = re.compile(
    r"\s?(?:です|でした|であります|である|になります|입니다|이에요|예요|였습니다|이었습니다)(?=[\s.,;!?)。、，！？）]|$)"
)

# Words that end an institution's name ("京都大学", "理化学研究所", "中国科学院神经科学研究所").
INSTITUTION_ENDS = (
    "大学|大學|研究所|研究院|研究センター|研究中心|センター|中心|病院|医院|醫院|学院|學院|科学院|機構|研究機構|研究科"
)
# "東京大学の鈴木美咲", "浙江大学的刘洋": "of" after an institution, before the person who works there.
_OF_AFTER_INSTITUTION_RE = re.compile(rf"(?<=[{_HAN}{_KANA}])(?P<end>{INSTITUTION_ENDS})(?:の|的)")
# A name of kanji and katakana (a Japanese particle is hiragana) ending in one of those words, maybe
# after the Chinese words that say where one works ("我是浙江大学", "来自复旦大学").
_INSTITUTION_RE = re.compile(
    rf"(?:我是|我在|我们是|我们在|来自|來自|我来自)?(?P<name>[{_HAN}{_KANA}]{{1,16}}?(?:{INSTITUTION_ENDS}))"
)
# A name in Han characters or kana with its romanisation after it: "山田太郎（Yamada Taro）", "森田 翔 (Morita Sho)".
_ROMANISED_NAME_RE = re.compile(
    rf"\s*[{_HAN}{_KANA}・\uac00-\ud7af]{{2,6}}(?:\s[{_HAN}{_KANA}]{{1,4}})?\s?"
    r"\((?P<latin>[A-Z][a-z'’-]+(?:\s[A-Z][a-z'’-]+){1,2})\)\s*"
)

# A sex word standing alone or joined to an age ("64歳女性"), never inside a longer word ("雄太").
SEX = (
    rf"(?<![{_KANA}])(?:オス|メス)(?![{_KANA}])"
    rf"|(?:(?<![{_HAN}])|(?<=[歳才岁]))(?:雄性|雌性|男性|女性|雄|雌)(?![{_HAN}])"
    r"|(?<![\uac00-\ud7af])(?:수컷|암컷|남성|여성)(?![\uac00-\ud7af])"
)
# "12週齢", "生後8週" (eight weeks after birth), "8周龄", "3ヶ月", "64歳"; not the day of a date ("3月12日").
AGE = (
    rf"(?:生後|出生后)?(?<![月\d])\d+(?:\.\d+)?\s?(?:{'|'.join(sorted(EAST_ASIAN_AGE_UNITS, key=len, reverse=True))})"
    rf"(?!(?!男性|女性|オス|メス|雄|雌)[{_HAN}{_KANA}])"  # "64歳女性": the sex may follow
)


def has_cjk(text: str) -> bool:
    return bool(_CJK_RE.search(text))


# The writer giving their own name: "我是王磊，…", "東京大学の佐藤美咲です", "저는 이지은입니다", "서울대학교
# 이수진 (Lee Sujin) 입니다". Read as the experimenter's label ("実験者：王磊"), as the English "I'm …" is
# read, unless the message labels the experimenter itself. Words for what one is ("大学院生です",
# "학생입니다") are no names.
_HANGUL = r"\uac00-\ud7af"
_SELF_INTRODUCTIONS = (
    re.compile(
        # "我是王磊", "我是复旦大学脑科学研究院的王磊": the institution before the name stays where it is
        rf"(?:我是|我叫|我的名字是|我名叫)(?P<pre>(?:[{_HAN}]{{2,24}}?(?:{INSTITUTION_ENDS})的)?)"
        rf"(?P<name>[{_HAN}]{{2,4}}(?=[，,。.（(\s]|来自|來自|$)|[A-Z][a-z]+(?:\s[A-Z][a-z]+){{1,2}})"
        # "我是李晓东 (Li Xiaodong)", "我是Li Na（姓Li）": the romanisation, and which name is the family's
        rf"(?P<end>(?:\s?[（(][A-Z][a-z'’-]+(?:\s[A-Z][a-z'’-]+){{1,2}}[)）])?(?:\s?[（(](?:姓|surname)[^()（）]*[)）])?)"
    ),
    re.compile(
        rf"(?P<pre>(?:{INSTITUTION_ENDS})の|。|\s|^)(?:私は|わたしは)?"
        rf"(?P<name>[{_HAN}々]{{2,4}}(?:\s[{_HAN}々]{{1,3}})?)(?P<end>です|と申します)"
    ),
    re.compile(
        rf"(?P<pre>\s|^)(?:저는\s?)?(?P<name>[{_HANGUL}]{{2,4}})"
        rf"(?P<end>\s?(?:\([^()]*\)\s?)?(?:입니다|이에요|예요)(?:\s?\([^()]*\))?)"
    ),
)
_NOT_NAME_ENDS = tuple("生者員師授長医士家部")


def _could_be_a_name(name: str, *, hangul: bool, said_as_mine: bool) -> bool:
    """Whether the characters before "です" or "입니다" may be a name: a Korean one starts with a family
    name, a Japanese one (unless "私は" says it is the writer's) with a family name the portal knows,
    so "訂正です" ("a correction") and "암컷입니다" ("a female") are none."""
    if hangul:
        return name[:1] in KOREAN_FAMILY_NAMES or known_family_name(name[:2])
    return said_as_mine or known_family_name(name[:2]) or known_family_name(name[:3]) or " " in name


_NOT_NAMES = frozenset({"학생", "대학원생", "연구원", "교수", "박사", "포닥", "석사", "박사과정"})
_ROMANISATION_RE = re.compile(r"[（(](?P<latin>[A-Z][a-z'’-]+(?:\s[A-Z][a-z'’-]+){1,2})[)）]")


def _self_introduced(text: str) -> str:
    if any(label in text for label in _EXPERIMENTER_LABELS):
        return text
    for pattern in _SELF_INTRODUCTIONS:
        m = pattern.search(text)
        if not m:
            continue
        name = m.group("name")
        if name.endswith(_NOT_NAME_ENDS) or name in _NOT_NAMES or re.search(INSTITUTION_ENDS, name):
            continue
        if pattern is not _SELF_INTRODUCTIONS[0] and not _could_be_a_name(
            name,
            hangul=bool(re.match(f"[{_HANGUL}]", name)),
            said_as_mine=bool(re.search("私は|わたしは|저는", m.group())),
        ):
            continue
        romanised = _ROMANISATION_RE.search(m.group("end"))
        written = name + (f" ({romanised['latin']})" if romanised else "")
        rest = re.sub(r"^\s?[，,、。.]", "", text[m.end() :])  # the name's sentence ends with it
        return f"{text[: m.start()]}{m.group('pre')}実験者：{written}。{rest}"
    return text


def spaced(text: str) -> str:
    """`text` with its Japanese and Chinese punctuation, label particles and polite endings written as
    the reader reads them; a message without any is returned as it is."""
    if not has_cjk(text):
        return text
    text = _self_introduced(text)
    text = _POLITE_END_RE.sub("", text)
    text = _LABEL_TOPIC_RE.sub(lambda m: f"{m.group('label')}：", text)
    text = _OF_AFTER_INSTITUTION_RE.sub(lambda m: f"{m.group('end')}、", text)
    return _PUNCTUATION_RE.sub(_latin_punctuation, text)


def _latin_punctuation(m: re.Match[str]) -> str:
    """The Latin mark, spaced as English spaces it: "（" opens after a space, the others take one after."""
    mark, text = m.group(), m.string
    latin = _PUNCTUATION[mark]
    if mark in _OPENING:
        return latin if m.start() == 0 or text[m.start() - 1].isspace() else f" {latin}"
    after = text[m.end() : m.end() + 1]
    return latin if not after or after.isspace() or after in _PUNCTUATION else f"{latin} "


def institution_name(value: str) -> tuple[int, int] | None:
    """Where the institution's name lies in `value` when `value` is one written in Han characters or
    kana ("京都大学", "我是浙江大学"), else None."""
    m = _INSTITUTION_RE.fullmatch(value.strip())
    if not m:
        return None
    offset = len(value) - len(value.lstrip())
    return offset + m.start("name"), offset + m.end("name")


def romanised_name(value: str) -> str | None:
    """ "Family, Given" from a name written in Han characters or kana with its romanisation in parentheses.

    The characters put the family name first, and a romanisation after them mostly keeps their order
    ("刘洋（Liu Yang）" is Liu, Yang); it is read the other way round only when its words say so, a
    common given name before a common family name ("鈴木美咲（Misaki Suzuki）")."""
    m = _ROMANISED_NAME_RE.fullmatch(value)
    if not m:
        return None
    words = m.group("latin").split()
    if family_name_first(words[::-1]) and not family_name_first(words):
        words = [words[-1], *words[:-1]]
    return f"{words[0]}, {' '.join(words[1:])}"
