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
# Chinese family names as Singapore, Malaysia and Hong Kong romanise them (Hokkien, Teochew, Cantonese).
SOUTHERN_CHINESE = _names(
    """tan lim ng goh teo ong koh chua chan wong cheung leung lau chow tsang kwok yip tse low yeo toh quek
    seah chong loh phua khoo foo"""
)
# Hungarian names are written family name first in Hungarian ("Nagy Gábor", "Kiss Dóra"); the common
# family names and given names, so that "Gábor Nagy" (the English order) stays as written.
HUNGARIAN = _names(
    """nagy kovacs toth szabo horvath varga kiss molnar nemeth farkas balogh papp takacs juhasz lakatos
    meszaros olah racz fekete szilagyi torok feher balazs gal kis szucs kocsis orsos pinter fodor szalai
    sipos magyar lukacs gulyas biro kiraly katona laszlo jakab bogdan balog sandor boros fazekas kelemen
    antal somogyi orosz vincze veres budai hegedus deak pap bartha palfi vass"""
)
_HUNGARIAN_GIVEN = _names(
    """gabor laszlo istvan jozsef janos zoltan sandor ferenc attila peter tamas zsolt tibor andras csaba
    imre gyorgy balazs mihaly robert akos bence mate mark daniel adam david levente gergely krisztian
    norbert viktor szabolcs marton botond kristof dominik
    maria erzsebet katalin ilona eva anna zsuzsanna margit judit agnes julianna andrea erika krisztina
    edit ildiko timea eszter monika zsofia reka dora noemi petra orsolya viktoria anita kinga boglarka
    nora lilla fanni hanna luca emese beata rita szilvia brigitta adrienn melinda"""
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
        if first in HUNGARIAN and _plain(given) in _HUNGARIAN_GIVEN and first not in _HUNGARIAN_GIVEN:
            return True
        if first in CHINESE and _is_pinyin_given(given) and _plain(given).replace("-", "") not in CHINESE:
            return True
        return first in JAPANESE and _is_japanese_given(given) and _plain(given) not in JAPANESE
    if first in VIETNAMESE and _plain(rest[0]) in _VIETNAMESE_MIDDLE:
        return True
    # "Tan Wei Ling", given name in two words; but "Wei Ling Tan" ends with the family name.
    return (
        len(rest) == 2
        and (first in CHINESE or first in SOUTHERN_CHINESE)
        and all(_is_pinyin_given(word) for word in rest)
        and _plain(rest[-1]) not in CHINESE | SOUTHERN_CHINESE
    )


# Common Spanish family names. A Spanish name ends with two family names, the father's and the
# mother's ("Martina Gómez Ruiz" is Gómez Ruiz, Martina); both are the family name only where neither
# is also a common given name ("Ana Lucía Ferrer", "Pablo Martín").
SPANISH = _names(
    """garcia rodriguez gonzalez fernandez lopez martinez sanchez perez gomez jimenez ruiz hernandez diaz
    moreno munoz alvarez romero gutierrez navarro torres dominguez vazquez ramos serrano blanco molina
    morales suarez ortega delgado castro ortiz rubio marin sanz nunez iglesias medina garrido cortes
    castillo lozano guerrero cano prieto mendez calvo gallego vidal marquez herrera pena cabrera campos
    vega fuentes carrasco caballero reyes nieto aguilar pascual herrero montero hidalgo gimenez ibanez
    ferrer duran benitez vargas arias carmona crespo pastor soto saez velasco moya soler parra bravo
    gallardo rojas acosta figueroa sepulveda contreras espinoza valenzuela araya fuentes cardenas rios
    echeverria navas quintero salazar ochoa mejia zapata"""
)
_SPANISH_GIVEN = _names("""martin santiago leon cruz mora vicente esteban roman lorenzo pascual alonso""")


def spanish_family_names(words: list[str]) -> int:
    """How many of the last `words` of a name given name first are its family name: 2 for "Martina
    Gómez Ruiz" and "María José García López", else 1."""
    if len(words) < 3:
        return 1
    father, mother = _plain(words[-2]), _plain(words[-1])
    if father in SPANISH and mother in SPANISH and father not in _SPANISH_GIVEN:
        return 2
    return 1


# Names written in Han characters or Hangul put the family name first with no space: "王磊", "陈晓明",
# "佐藤美咲", "高橋翔", "이지은". A Chinese or Korean family name is one character (a few are two); a
# Japanese one mostly two. The common two-character ones are listed; a space the writer put ("鈴木 花子")
# says it outright.
_HAN_OR_HANGUL_NAME_RE = re.compile(r"[\u3005\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]{2,5}")
_GIVEN_NAME_RE = re.compile(r"[\u3005\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]{1,4}|[\u3040-\u30ff]{2,6}")  # kana too
_TWO_CHARACTER_FAMILY_NAMES = _names(
    """欧阳 司马 诸葛 上官 东方 皇甫 令狐 慕容 司徒 夏侯 歐陽 司馬 諸葛 남궁 황보 제갈 선우 독고 사공 서문
    佐藤 鈴木 高橋 田中 伊藤 渡辺 渡邊 山本 中村 小林 加藤 吉田 山田 山口 松本 井上 木村 斎藤 斉藤 清水
    山崎 池田 橋本 阿部 石川 山下 中島 石井 小川 前田 岡田 藤田 後藤 近藤 村上 遠藤 青木 坂本 福田 太田
    西村 藤井 金子 岡本 藤原 中野 三浦 原田 中川 松田 竹内 小野 田村 中山 和田 石田 森田 上田 柴田 酒井
    工藤 横山 宮崎 宮本 内田 高木 安藤 島田 谷口 大野 高田 丸山 今井 河野 藤本 村田 武田 上野 杉山 増田
    小山 大塚 平野 菅原 久保 松井 千葉 岩崎 桜井 木下 野口 松尾 菊地 野村 新井 渡部 佐々 長谷 鈴村 森本
    北村 松岡 大西 浅野 水野 小島 山内 小池 服部 樋口 西田 菅野 秋山 大橋 永井 平田 荒木 久保田"""
)
_THREE_CHARACTER_FAMILY_NAMES = _names("佐々木 長谷川 久保田 五十嵐")
# Korean family names of one syllable (over 95 % of Koreans bear one of these, or one of the compound
# names above): "암컷입니다" ("it is a female") begins with none.
KOREAN_FAMILY_NAMES = _names(
    """김 이 박 최 정 강 조 윤 장 임 한 오 서 신 권 황 안 송 류 유 전 홍 고 문 양 손 배 백 허 남
    심 노 하 곽 성 차 주 우 구 민 진 나 지 엄 변 채 원 방 천 공 현 함 염 여 추 도 소 석 선 설
    마 길 연 위 표 명 기 반 라 왕 금 옥 육 인 맹 제 모 탁 국 어 은 편 용 예 경 봉 사 부 태 목
    형 계 피 두 감 음 빈 동 온 호 범 좌 팽 승 간 상 갈 시 단 견 당"""
)


def known_family_name(name: str) -> bool:
    """Whether `name` is a family name of two or three characters the portal knows ("佐藤", "佐々木")."""
    return name in _TWO_CHARACTER_FAMILY_NAMES or name in _THREE_CHARACTER_FAMILY_NAMES


def written_family_given(name: str) -> tuple[str, str] | None:
    """(family, given) of a name written in Han characters or Hangul ("陈晓明" → 陈, 晓明; "佐藤美咲" →
    佐藤, 美咲; "鈴木 花子" → 鈴木, 花子); None for anything else."""
    words = name.split()
    if len(words) == 2 and _HAN_OR_HANGUL_NAME_RE.fullmatch(words[0]) and _GIVEN_NAME_RE.fullmatch(words[1]):
        return words[0], words[1]  # "鈴木 花子", "山本 さくら"
    if (
        len(words) != 1
        or not _HAN_OR_HANGUL_NAME_RE.fullmatch(name)
        or (len(name) > 4 and name[:3] not in _THREE_CHARACTER_FAMILY_NAMES)
    ):
        return None
    for size, known in ((3, _THREE_CHARACTER_FAMILY_NAMES), (2, _TWO_CHARACTER_FAMILY_NAMES)):
        if name[:size] in known and len(name) > size:
            return name[:size], name[size:]
    return name[:1], name[1:]
