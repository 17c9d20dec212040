"""Names written family name first, as Chinese, Japanese, Korean and Vietnamese writers often give
their own in romanised form ("Zhou Jie", "Sato Kenta", "Kim Ji-woo", "Nguyen Thi Mai").

`family_name_first(words)` says whether a name without a comma is in that order. It answers yes only
when the first word is one of the common family names of those languages and the rest has the
shape of a given name of the same language that is not itself a common family name there: "Jie
Zhou" and "Kenta Sato" stay given name first, "Yang Liu" (both common family names) is read as
written in the English order, and "Lu Santos" (not a Chinese given name) is never turned around.
"""

from __future__ import annotations

import re
import unicodedata


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The most common family names, romanised as their bearers write them in English.
CHINESE = _names(
    """wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo zheng liang
    xie song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye cheng wei su
    lu ding ren yao shen zhong cui tan fan liao shi jin jia xia fu fang zou xiong bai meng qin qiu hou
    yin xue yan duan lei long tao mao hao gu gong shao wan qian dai kong"""
)
KOREAN = _names(
    """kim lee yi park pak choi choe jung jeong chung kang cho jo yoon yun jang chang lim im han oh seo
    shin kwon hwang ahn an song yoo yu hong jeon moon mun son bae baek paik heo nam noh roh ha kwak
    sung cha joo woo min ryu na jin chae won chun bang byun yeo ko go"""
)
JAPANESE = _names(
    """sato suzuki takahashi tanaka watanabe ito yamamoto nakamura kobayashi kato yoshida yamada
    sasaki yamaguchi matsumoto inoue kimura hayashi shimizu yamazaki mori abe ikeda hashimoto
    yamashita ishikawa nakajima maeda fujita ogawa goto okada hasegawa murakami kondo ishii saito
    sakamoto endo aoki fujii nishimura fukuda ota miura fujiwara okamoto matsuda nakagawa nakano
    harada ono tamura takeuchi kaneko wada nakayama ishida ueda morita hara shibata sakai kudo
    yokoyama miyazaki miyamoto uchida takagi ando taniguchi ohno maruyama imai takada fujimoto
    takeda murata ueno sugiyama masuda sugawara hirano otsuka koyama chiba kubo matsui iwasaki
    sakurai kinoshita noguchi matsuo nomura kikuchi sano onishi sugimoto arai hamada kojima
    mizuno yoshikawa kishi tsuchiya kawaguchi kawasaki kawamura hoshino iwata"""
)
VIETNAMESE = _names("nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly truong dinh lam mai trinh")
# Vietnamese middle names that mark the family name before them ("Bui Van Long", "Nguyen Thi Mai").
_VIETNAMESE_MIDDLE = _names("van thi duc minh ngoc huu quang thanh hong xuan anh dinh cong")

_PINYIN = re.compile(
    r"(?:(?:[bpmfdtnlgkhjqxrzcsyw]|zh|ch|sh)?"
    r"(?:iang|iong|uang|ueng|ang|eng|ing|ong|ian|iao|uai|uan|ai|ei|ao|ou|an|en|in|un|ia|ie|iu|ua|uo|ui|ue|er|a|o|e|i|u|v))"
)
# Japanese given names in Hepburn romanisation: morae, long vowels written plainly.
_MORA = re.compile(r"(?:(?:ky|sh|ch|ts|ny|hy|my|ry|gy|by|py|j|[kgsztdnhbpmyrwf])?[aiueo]|n)")


def _plain(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word)
    return "".join(c for c in folded if not unicodedata.combining(c)).lower()


def _is_pinyin_given(word: str) -> bool:
    """One or two syllables of pinyin: "Jie", "Rui", "Xiaoming", "Yuting", "Yu-Ting"."""
    plain = _plain(word).replace("-", "").replace("'", "")
    return bool(plain) and re.fullmatch(f"{_PINYIN.pattern}{{1,2}}", plain) is not None


def _is_japanese_given(word: str) -> bool:
    plain = _plain(word)
    return len(plain) >= 2 and re.fullmatch(f"{_MORA.pattern}+", plain) is not None


def _is_korean_given(word: str) -> bool:
    """Korean given names are romanised as two syllables, mostly with a hyphen: "Ji-woo", "Seo-yeon"."""
    return re.fullmatch(r"[A-Z][a-z]{1,4}-[a-z]{2,5}", word) is not None


def family_name_first(words: list[str]) -> bool:
    """Whether `words` (a name without a comma, titles removed) gives the family name first."""
    if len(words) < 2 or not all(word[:1].isupper() for word in words):
        return False
    first, rest = _plain(words[0]), words[1:]
    if len(rest) == 1:
        given = rest[0]
        if first in KOREAN and _is_korean_given(given):
            return True
        if first in CHINESE and _is_pinyin_given(given) and _plain(given).replace("-", "") not in CHINESE:
            return True
        return first in JAPANESE and _is_japanese_given(given) and _plain(given) not in JAPANESE
    if first in VIETNAMESE and _plain(rest[0]) in _VIETNAMESE_MIDDLE:
        return True
    # "Tan Wei Ling", given name in two words; but "Wei Ling Tan" ends with the family name.
    return (
        len(rest) == 2
        and first in CHINESE
        and all(_is_pinyin_given(word) for word in rest)
        and _plain(rest[-1]) not in CHINESE
    )
