"""Brain areas named in a message: the recording location NWB keeps on the electrodes.

An area is either an abbreviation as anatomists write it (V1, CA1, mPFC, Allen's VISp), matched with
its letter case, or a head noun (cortex, hippocampus, colliculus, nucleus, ...) with the adjectives in
front of it ("left dorsal hippocampus", "medial entorhinal cortex", "area MT"). Areas joined by "and",
"&" or "+" are one location ("V1 and LGN"). An adjective alone ("hippocampal slices") names no area:
the slice may come from anywhere in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ABBREVIATIONS = frozenset(
    """V1 V2 V3 V4 V5 MT MST M1 M2 S1 S2 A1 CA1 CA2 CA3 DG LGN dLGN vLGN SC MEC LEC mEC lEC PFC mPFC dmPFC
    vmPFC ACC OFC VTA SNc SNr BLA CeA RSP RSC PPC ALM LIP MIP FEF SEF IT NAc DMS DLS HPC OB HVC RA LMAN BNST
    LHb MHb MSO LSO STN GPe GPi PAG LC DRN IC MGB VPM VPL POm LP ZI PVN SCN PL IL AIC vHPC dHPC EC PrL ILC
    mOFC lOFC VISp VISl VISam VISpm VISal VISrl MOp MOs SSp SSs AUDp ACAd ACAv PIR ENTl ENTm CP ACB LHA DMH
    VMH ARH SN GP STR CPu TRN LD LS MS DB CeM IPN SFO ICx ICc MNTB NCL DCN AVCN PVCN VCN vlPFC dlPFC PMd PMv SMA
    preSMA AIP MSTd FST V3A V6 NTS PBN""".split()  # noqa: SIM905 (a word list reads best as words)
)
_HEADS = (
    "cortex|cortices|hippocampus|hippocampi|thalamus|hypothalamus|striatum|cerebellum|amygdala|colliculus|colliculi"
    "|nucleus accumbens|nucleus reuniens|nucleus|nuclei"
    "|body|bodies|bulb|gyrus|lobe|habenula|septum|tectum|retina|spinal cord"
    "|midbrain|hindbrain"
    "|forebrain|brainstem|brain stem|nerve cord|nerve|nidopallium|pallium|ganglion|ganglia|cord|pons|medulla|claustrum"
    "|insula|putamen|caudate|globus pallidus|substantia nigra|complex|formation|subiculum|tegmentum|tegmental area"
    "|cochlea|gray|grey|fasciculus|accumbens|neuropil|horn|raphe|pulvinar|ridge|coeruleus|locus coeruleus"
    "|hypothalamic area|preoptic area|eye field|olive|pallidum|zona incerta|sulcus|plexus|area X"
    "|intraparietal area|parietal area|premotor area|motor area|visual area|auditory area|association area"
    "|nigra|lobule|vermis|flocculus|arcopallium|mesopallium|hyperpallium|area\\s\\d{1,2}"
    # the same in the users' other languages
    "|corteccia|córtex|corteza|kortex|hipocampo|ippocampo|amígdala|amigdala|tálamo|talamo|cerebelo|cervelletto"
    "|estriado|striato|núcleo accumbens|nucleo accumbens|noyau accumbens|bulbo olfatorio|bulbo olfattivo|bulbe olfactif"
    "|núcleo|nucleo|noyau|rétine|hippocampe|amygdale|hipotálamo|ipotalamo|hypothalamus|cervelet"
    "|midollo spinale|médula espinal|medula espinhal|moelle épinière|lobula|lóbula|bulbo olfativo"
)
# Latin words that follow a head: "nidopallium caudolaterale", "substantia nigra pars compacta", "nucleus
# magnocellularis".
_AFTER_WORD = (
    r"(?:pars\s[a-z]+|caudolaterale|caudomediale|interpositus|basalis|ambiguus|shell|core|proper"
    r"|internus|externus|interna|externa|dentatus"
    # adjectives that follow the noun in French, Spanish, Italian, Portuguese: "cortex visuel", "corteza motora",
    # "corteccia prefrontale mediale", "núcleo central"
    r"|visuel|visuelle|moteur|motrice|auditif|somatosensoriel|préfrontal|visiva|visivo|motoria|uditiva|prefrontale"
    r"|visual|motora|auditiva|somatosensorial|somatossensorial|somatosensoriale|pré-frontal|prefrontal|dorsal"
    r"|ventral|dorsale|ventrale|medial|mediale|médian|latéral|lateral|laterale|antérieur|anterior|anteriore"
    r"|postérieur|posterior|posteriore|primaire|primario|primaria|primário|orbitofrontal|orbitofrontale"
    r"|entorhinal|entorrinal|entorinale|cingulaire|cingulado|cingolato|insulare|pariétal|parietal|parietale"
    r"|temporal|temporale|frontal|frontale|occipital|occipitale|motore|motor|uditivo|auditivo|central|centrale"
    r"|basolatéral|basolateral|basolaterale|piriforme|olfactif|olfativo|olfattivo|spinale|espinal"
    r"|à\stonneaux|a\sbarile"
    r"|simplex|nucleus|supérieur|inférieur|superior|inferior|insular|olfatoria|olfativa|olfattiva"
    r"|(?!(?:calcium|sodium|potassium|magnesium|medium|premium)\b)[a-z]{4,}(?:aris|alis|ensis|atus|ata|ium))"
)
_AFTER_HEAD = rf"(?:\s{_AFTER_WORD}){{0,2}}"
# Modifiers not in the list above that read as anatomy by their ending ("inferotemporal", "sensorimotor",
# "stomatogastric", "interpositus"), except common words with those endings.
_ANY_MODIFIER = (
    r"(?!(?:several|original|normal|individual|total|general|experimental|animal|typical|similar|regular|particular"
    r"|clinical|surgical|chronic|acute|electric|electrical|optical|neural|neuronal|single|multiple|technical|local"
    r"|global|critical|previous|various|numerous|serious|famous|continuous|spontaneous|genetic|synaptic|intrinsic"
    r"|extracellular|intracellular|juxtacellular|physiological|pharmacological|behavioral|behavioural|natural"
    r"|artificial|virtual|visual-tactile|final|initial|additional|internal|external|bilateral|mutual|actual)\b)"
    r"[a-z]{4,}(?:al|ar|ary|ic|ior|ine|ory|otor|us|ediate)"
)
_MODIFIERS = (
    "primary|secondary|midbody|axial|visual|auditory|somatosensory|sensory|motor|premotor|barrel|prefrontal|prelimbic"
    "|infralimbic|medial|lateral|dorsal|ventral|anterior|posterior|entorhinal|piriform|olfactory|orbitofrontal"
    "|cingulate|insular|retrosplenial|parietal|temporal|frontal|occipital|superior|inferior|left|right|bilateral"
    "|fan-shaped|mushroom|ellipsoid|optic|dentate|basolateral|central|cerebellar|subthalamic|speech|gustatory"
    "|perirhinal|postrhinal|ventrolateral|dorsomedial|dorsolateral|ventromedial|mediodorsal|paraventricular"
    "|suprachiasmatic|deep|superficial|rostral|caudal|antennal|spinal|cochlear|vestibular|reticular|red|dorsal raphe"
    "|raphe|periaqueductal|ventral tegmental|arcuate|geniculate|lateral geniculate|medial geniculate|mammillary"
    "|pontine|tectal|posterior parietal|extrastriate|striate|association|limbic|septal|hippocampal|thalamic"
    "|parafascicular|intralaminar|anterodorsal|globus|substantia|supramarginal|fusiform|angular|precentral"
    "|postcentral|ectorhinal|agranular|granular|whisker|trigeminal|auditory nerve|IT|abdominal|sciatic|vagus|vagal"
    "|basal|ventricular|median|optic nerve|visual thalamus|auditory thalamus|middle|electrosensory|lateral line"
    "|stellate|external|dorsal root|central ring|root"
)
# German adjectives, inflected, before the noun: "im medialen präfrontalen Kortex", "des motorischen Kortex".
_GERMAN_MODIFIER = r"[a-zäöü]{3,}(?:isch|al|ell|är|or|iv)(?:e|en|er|es|em)"
_AREA = (
    rf"(?:(?:{_MODIFIERS}|{_ANY_MODIFIER}|{_GERMAN_MODIFIER})[\s-]){{0,3}}(?:{_HEADS}){_AFTER_HEAD}(?:\s(?:{'|'.join(sorted(_ABBREVIATIONS))}))?"
    rf"|(?:area|region|layer)\s(?:{'|'.join(sorted(_ABBREVIATIONS))})"
)
_AREA_RE = re.compile(rf"(?<![\w-])(?:{_AREA})(?![\w-])", re.IGNORECASE)
# Areas named in Japanese or Chinese, inside a run of characters where no space marks where a name
# starts ("ラット扁桃体からの記録", "小鼠的外侧缰核"): a head noun, the words that narrow it before it
# ("内側前頭前野", "バレル皮質", "前扣带皮层") and the anatomists' abbreviation after it ("海馬CA1").
_EAST_ASIAN_HEADS = (
    "前頭前野|前頭前皮質|前额叶皮层|前额叶|皮質|皮质|皮层|海馬体|海馬|海马体|海马|扁桃体|杏仁核|線条体|纹状体|視床下部"
    "|下丘脑|視床|丘脑|小脳|小脑|嗅球|脳幹|脑干|脊髄|脊髓|網膜|视网膜|歯状回|齿状回|側坐核|伏隔核|手綱核|缰核|黒質|黑质"
    "|上丘|下丘|腹側被蓋野|腹侧被盖区|中脳|中脑|帯状回|扣带回|前障|屏状核|青斑核|蓝斑|中隔|淡蒼球|苍白球|視交叉上核"
    "|视交叉上核|分界条床核|膝状体|梨状皮質|梨状皮层|嗅内野"
)
_EAST_ASIAN_MODIFIERS = (
    "内側|外側|背側|腹側|吻側|尾側|内侧|外侧|背侧|腹侧|前|後|后|左|右|両側|双侧|一次|二次|初级|次级|バレル|体性感覚|視覚"
    "|聴覚|運動|味覚|嗅覚|桶状|躯体感觉|体感|视觉|听觉|运动|味觉|嗅觉|帯状|扣带|眼窩前頭|眶额|頭頂|顶叶|側頭|颞叶|後頭"
    "|枕叶|前頭|额叶|脳梁膨大後部|嗅内|内嗅|梨状|島|岛叶|外側膝状|外侧膝状"
)
_KANA_OR_HAN_RE = re.compile(r"[\u30a0-\u30ff\u3400-\u9fff]")  # a message without them names none
_EAST_ASIAN_AREA_RE = re.compile(
    rf"(?:{_EAST_ASIAN_MODIFIERS}){{0,4}}(?:{_EAST_ASIAN_HEADS})"
    rf"(?:\s?(?:{'|'.join(sorted(_ABBREVIATIONS, key=len, reverse=True))})(?![A-Za-z0-9/-]))?"
)
_ABBREVIATION_ALTERNATIVES = "|".join(sorted(_ABBREVIATIONS, key=len, reverse=True))
_ABBREVIATION_RE = re.compile(
    rf"(?<![\w/-])(?:(?:dorsal|ventral|left|right|medial|lateral|hippocampal)\s){{0,2}}(?:{_ABBREVIATION_ALTERNATIVES})"
    rf"(?:\s(?:core|shell))?(?![\w/-])"
)
# "spinal cord dorsal horn" too; "hipocampo e córtex pré-frontal", "Hippocampus und Kortex"
_JOINED_RE = re.compile(r"\s{0,2}(?:and|&|\+|,|e|y|et|und|i|og|en|och|és)\s{0,2}|\s", re.IGNORECASE)
# A single head word before "cells" names a cell type ("retinal ganglion cells"), not an area.
_CELL_TYPE_AFTER = re.compile(r"\s(?:cells?|neurons?)\b", re.IGNORECASE)
# Words that make a head noun something else than an area: "nucleus" of a cell, a "body" weight.
_NOT_AREAS = frozenset(
    {
        "cell body",
        "body weight",
        "body mass",
        "nucleus",
        "nuclei",
        "body",
        "complex",
        "cord",
        "núcleo",
        "nucleo",
        "noyau",
    }
)


@dataclass(frozen=True)
class AreaMention:
    start: int
    end: int
    text: str


def brain_area(text: str) -> AreaMention | None:
    """The first brain area `text` names, with the areas joined to it; None when it names none."""
    spans = area_spans(text)
    if not spans:
        return None
    start, end = spans[0]
    for next_start, next_end in spans[1:]:
        if _JOINED_RE.fullmatch(text, end, next_start):
            end = next_end
        else:
            break
    of_the = _OF_THE_RE.match(text, end)
    if of_the and (inner := _AREA_RE.match(text, of_the.end())) and _OF_HEADS & set(text[start:end].lower().split()):
        end = (
            inner.end()
        )  # "paraventricular nucleus of the hypothalamus", "central nucleus of the anterior arcopallium"
    named = _NAMED_BY_ABBREVIATION_RE.match(text, start, end)  # "song nucleus RA": the name is "RA"
    if named and named.end() == end:
        start = named.start("name")
    # The cortical layer written with the area is part of where the recording was: "layer 2/3 of
    # barrel cortex", "L4 of S1", "V1 layer 2/3", "motor cortex (L5)". A layer that names a kind of
    # cell ("layer 5 pyramidal neurons in motor cortex") is not: the neurons are in the area.
    # The animal named between them is not part of the place: "layer 5 of mouse barrel cortex" is
    # stored "layer 5 of barrel cortex".
    if shared := _SHARED_HEAD_RE.search(text, max(0, start - 40), start):
        start = shared.start()  # "auditory and frontal cortex": both share the noun
    if abbreviation := _ABBREVIATION_AFTER_RE.match(text, end):
        end = abbreviation.end()  # "lateral intraparietal area (LIP)"
    if layer_before := _LAYER_BEFORE_RE.search(text, max(0, start - 60), start):
        layer = text[layer_before.start() : layer_before.start("animal")]
        return AreaMention(layer_before.start(), end, layer + text[start:end])
    if layer_after := _LAYER_AFTER_RE.match(text, end):
        end = layer_after.end()
    return AreaMention(start, end, text[start:end])


_LAYER = (
    r"(?:layers?\s?|L|strato\s|Schicht\s|couche\s|capa\s|camada\s|warstwa\s|laag\s)"
    r"(?:[1-6](?:/[1-6]|\s?(?:and|&|-)\s?[1-6])?[ab]?|I{1,3}|IV|V|VI)"
)
_LAYER_BEFORE_RE = re.compile(
    rf"(?<![\w/-]){_LAYER}\s(?:of|in|della|dello|des|der|de\sla|de|da|do|del|van\sde|van\shet)\s(?:the\s)?(?P<animal>(?:(?:mouse|mice|rat|rats|human|monkey|macaque|ferret|cat"
    rf"|marmoset|tree\sshrew)\s)?)$",
    re.IGNORECASE,
)
_SHARED_HEAD_RE = re.compile(rf"(?<![\w-])(?:{_MODIFIERS})\s(?:and|&|or|/)\s$", re.IGNORECASE)
_ABBREVIATION_AFTER_RE = re.compile(rf"\s\((?:{'|'.join(sorted(_ABBREVIATIONS, key=len, reverse=True))})\)")
_LAYER_AFTER_RE = re.compile(
    rf"(?:\s{_LAYER}|\s\({_LAYER}\))(?![\w/-])(?!\s(?:pyramidal|neurons?|cells?|interneurons?))"
)


# "X of the Y", and the same in French, Spanish, Italian, Portuguese: "núcleo central de la amígdala".
_OF_THE_RE = re.compile(
    r"\s(?:of\s(?:the\s)?|de\sla\s|de\sl'|del\s|della\s|dell'|do\s|da\s|du\s|des\s|de\s)(?=\w)", re.IGNORECASE
)
_OF_HEADS = frozenset(
    {"nucleus", "nuclei", "complex", "formation", "body", "ganglion", "lobe", "field", "núcleo", "nucleo", "noyau"}
)
_NAMED_BY_ABBREVIATION_RE = re.compile(r"(?i:region|nucleus)\s(?P<name>[A-Z][A-Za-z]+\d?|[A-Z]\d)")


_CAPITALISED_WORD_RE = re.compile(r"[A-Z][a-z]+")
_GIVEN_NAME_BEFORE_RE = re.compile(r"(?<![.!?:]\s)\b[A-Z][a-zà-ÿ]+\s$")
_RESEARCH_ASSISTANT_RE = re.compile(r"\s(?:at|for|with|from|here)\b|\s?[,)]")
_ROLE_BEFORE_RE = re.compile(r"(?:,\s?|\(\s?|\bi'?m\s(?:an?\s|the\s)?|\b(?:as|our|my)\s(?:an?\s)?)$", re.IGNORECASE)


def area_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    east_asian = _EAST_ASIAN_AREA_RE.finditer(text) if _KANA_OR_HAN_RE.search(text) else ()
    for m in [*_AREA_RE.finditer(text), *_ABBREVIATION_RE.finditer(text), *east_asian]:
        if m.group().lower() in _NOT_AREAS:
            continue
        if m.group().lower().endswith("ganglion") and _CELL_TYPE_AFTER.match(text, m.end()):
            continue  # "retinal ganglion cells" ("nucleus" and "body" alone are never areas, above)
        if any(m.start() < e and s < m.end() for s, e in spans):
            continue
        if _CAPITALISED_WORD_RE.fullmatch(m.group()) and _GIVEN_NAME_BEFORE_RE.search(
            text, max(0, m.start() - 30), m.start()
        ):
            continue  # "my labmate Jordi Pons": a family name, not the pons
        if (
            m.group() == "RA"
            and _RESEARCH_ASSISTANT_RE.match(text, m.end())
            and _ROLE_BEFORE_RE.search(text[: m.start()])
        ):
            continue  # "I'm Nadia Rahman, RA at the University of Toronto": a research assistant
        spans.append((m.start(), m.end()))
    return sorted(spans)


def is_brain_area(text: str) -> bool:
    """Whether `text` is one brain area and nothing else ("V1", "dorsal CA1", "barrel cortex")."""
    return bool(_ABBREVIATION_RE.fullmatch(text) or _AREA_RE.fullmatch(text) or _EAST_ASIAN_AREA_RE.fullmatch(text))
