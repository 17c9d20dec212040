"""Turn what a user typed into the form NWB and DANDI expect.

Pure functions. Each fixes form only (spelling, order, notation) and never guesses a fact: when
the text does not say enough, it raises `ValueError` with a message the user can act on.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from datetime import timezone as fixed_offset
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .family_first import family_name_first, known_family_name, spanish_family_names, written_family_given
from .fields import FIELDS

# --- experimenter --------------------------------------------------------------------------------

_TITLES = frozenset(
    {
        "dr",
        "prof",
        "professor",
        "phd",
        "ph.d",
        "md",
        "m.d",
        "mr",
        "mrs",
        "ms",
        "mx",
        "msc",
        "bsc",
        "dphil",
        "sir",
        # Titles in the languages of the portal's users: "Mgr", "Dr. rer. nat.", "Dr.ssa", "Dott.", "Ing."
        "mgr",
        "rer",
        "nat",
        "med",
        "dr.ssa",
        "dott",
        "dott.ssa",
        "ing",
        "mag",
        "mudr",
        "doc",
    }
)
_PEOPLE_SEPARATORS = re.compile(r"\s*(?:;|\n|&|\band\b)\s*", re.IGNORECASE)
_INITIALS = re.compile(r"^(?:[A-Z]\.?){1,3}$")


def normalize_experimenter(text: str, *, one_person: bool = False) -> list[str]:
    """Names as DANDI wants them, "Last, First": "Dr. Jane Smith and Bob Lee" →
    ["Smith, Jane", "Lee, Bob"]; "Smith J; Lee B" → ["Smith, J.", "Lee, B."].

    A lone family name ("Dr. Smith") stays "Smith": a first name would be invented. NWB accepts it;
    nwbinspector's `check_experimenter_form` then suggests (BEST_PRACTICE_SUGGESTION) the full form,
    so the full name is worth asking for. `one_person`: the text names one person (an item of a list
    already split), so "García López, María José" is that person, family name first.
    """
    people: list[str] = []
    chunks = [chunk for chunk in _PEOPLE_SEPARATORS.split(text) if chunk.strip()]
    # "García López, María José; Ruiz, Pablo": ';' between people, one ',' inside each
    listed = (";" in text or one_person) and all(chunk.count(",") == 1 for chunk in chunks)
    for chunk in chunks:
        people.extend([chunk.strip()] if listed else _split_comma_list(chunk))
    names = [name for name in (_last_first(person) for person in people) if name]
    if not names:
        raise ValueError("Give the experimenter's name, e.g. Jane Smith or Smith, Jane.")
    return list(dict.fromkeys(names))


def _split_comma_list(chunk: str) -> list[str]:
    """ "Smith, Jane" is one person; "Jane Smith, Bob Lee" and "Smith, Jane, Lee, Bob" are two."""
    parts = [part.strip() for part in chunk.split(",") if _without_titles(part.strip())]
    if len(parts) <= 1:
        return parts
    if len(parts) == 2 and parts[0].split()[0].lower() in _PARTICLES:
        return [chunk.strip()]  # "El Amrani, Fatima Zahra", "van der Berg, Anouk": one person, family name first
    if all(len(_without_titles(part)) >= 2 for part in parts):
        return parts  # every part is a full name
    if all(written_family_given(part) for part in parts) and not known_family_name(parts[0]):
        return parts  # "王磊, 李婷", "박지훈, 김민준": each a whole name (one person would be "王, 磊", "佐藤, 美咲")
    if len(parts) % 2 == 0:
        return [f"{parts[i]}, {parts[i + 1]}" for i in range(0, len(parts), 2)]
    raise ValueError(f"'{chunk.strip()}' is ambiguous: separate people with ';' or 'and', e.g. Smith, Jane; Lee, Bob.")


def _without_titles(text: str) -> list[str]:
    words = text.replace(",", " ").split()
    return [word for word in words if word.lower().rstrip(".") not in _TITLES]


# Family-name particles stay with the family name, as typed: "Ludwig van Beethoven" → "van Beethoven,
# Ludwig", "Willem van den Broek" → "van den Broek, Willem", "Siobhán Ní Bhriain" → "Ní Bhriain, Siobhán".
_PARTICLES = frozenset(
    {"van", "von", "de", "der", "den", "ten", "ter", "da", "di", "la", "le", "du", "del", "della", "dos", "das", "zu"}
    | {"ní", "nic", "ó", "mac", "bin", "binti", "al", "el"}
)


def _capitalised(words: list[str]) -> list[str]:
    """Names typed all in lower case ("jane doe") get capitals; any other casing ("McDonald",
    "dela Cruz", "JA") is the person's own and stays."""
    return [w.capitalize() if w.islower() and w not in _PARTICLES else w for w in words]


def _last_first(person: str) -> str:
    if "," in person:
        last, first = (" ".join(_capitalised(_without_titles(part))) for part in person.split(",", 1))
        if not last or not first:
            return last or first
        return f"{last}, {_initials_with_dots(first)}"
    if written := written_family_given(person.strip()):  # "陈晓明", "佐藤美咲", "이지은"
        return ", ".join(written)
    words = _capitalised(_without_titles(person))
    if len(words) < 2:
        return words[0] if words else ""
    if _INITIALS.match(words[-1]) and not _INITIALS.match(words[0]):
        # "Smith J" / "Smith JA": family name first, initials after.
        return f"{' '.join(words[:-1])}, {_initials_with_dots(words[-1])}"
    if family_name_first(words):  # "Zhou Jie", "Sato Kenta", "Kim Ji-woo", "Nguyen Thi Mai"
        return f"{words[0]}, {' '.join(words[1:])}"
    particles = spanish_family_names(words)
    while len(words) - particles - 1 >= 1 and words[-particles - 1].lower() in _PARTICLES:
        particles += 1
    return f"{' '.join(words[-particles:])}, {_initials_with_dots(' '.join(words[:-particles]))}"


def _initials_with_dots(first: str) -> str:
    words = first.split()
    if len(words) == 1 and _INITIALS.match(words[0]) and words[0].isupper():
        return ". ".join(words[0].replace(".", "")) + "."
    # an initial is a letter of an alphabet: "磊" or "민" is a whole given name ("王, 磊")
    return " ".join(f"{word}." if len(word) == 1 and word.isalpha() and ord(word) < 0x2E80 else word for word in words)


# --- species -------------------------------------------------------------------------------------

# The laboratory animals as Japanese and Chinese name them (conversions.language.east_asian finds them
# inside a run of characters, where no space sets a name off).
EAST_ASIAN_SPECIES: dict[str, str] = {
    **dict.fromkeys(["マウス", "小鼠", "小白鼠", "생쥐", "마우스"], "Mus musculus"),
    **dict.fromkeys(["ラット", "大鼠", "랫드", "랫트", "흰쥐"], "Rattus norvegicus"),
    **dict.fromkeys(["アカゲザル", "恒河猴", "猕猴", "獼猴"], "Macaca mulatta"),
    **dict.fromkeys(["カニクイザル", "食蟹猴"], "Macaca fascicularis"),
    **dict.fromkeys(["ニホンザル"], "Macaca fuscata"),
    **dict.fromkeys(["マーモセット", "狨猴"], "Callithrix jacchus"),
    **dict.fromkeys(["ゼブラフィッシュ", "斑马鱼", "斑馬魚"], "Danio rerio"),
    **dict.fromkeys(["ショウジョウバエ", "果蝇", "果蠅"], "Drosophila melanogaster"),
    **dict.fromkeys(["線虫", "线虫"], "Caenorhabditis elegans"),
    **dict.fromkeys(["キンカチョウ", "斑胸草雀"], "Taeniopygia guttata"),
    **dict.fromkeys(["フェレット", "雪貂"], "Mustela furo"),
    **dict.fromkeys(["スナネズミ", "沙鼠"], "Meriones unguiculatus"),
    **dict.fromkeys(["ツパイ", "树鼩", "樹鼩"], "Tupaia belangeri"),
    **dict.fromkeys(["患者", "被験者", "被试", "受试者", "志愿者", "ヒト"], "Homo sapiens"),
}
# DANDI's own table (dandi-cli `species_map`) knows mouse, human, Norway and black rat, rhesus and
# pig-tailed macaques, marmoset, fruit fly, zebrafish, C. elegans and Mongolian gerbil; the others
# are species common in neurophysiology. Keys are written as `_species_words` leaves them.
_SPECIES_BY_NAME: dict[str, str] = {
    **dict.fromkeys(
        [
            "mouse",
            "mice",
            "house mouse",
            "c57bl/6",
            "c57bl/6j",
            "c57bl/6n",
            "c57bl6",
            "c57",
            "bl6",
            "balb/c",
            "cd 1",
            "swiss",
            "swiss webster",
        ],
        "Mus musculus",
    ),
    **dict.fromkeys(
        [
            "rat",
            "rats",
            "brown rat",
            "norway rat",
            "sprague dawley",
            "long evans",
            "wistar",
            "fischer",
            "fischer 344",
            "lister hooded",
        ],
        "Rattus norvegicus",
    ),
    **dict.fromkeys(["black rat", "roof rat"], "Rattus rattus"),
    **dict.fromkeys(
        [
            "human",
            "humans",
            "person",
            "people",
            "patient",
            "patients",
            "participant",
            "participants",
            "volunteer",
            "volunteers",
            "child",
            "children",
            "infant",
            "infants",
            "neonate",
            "neonates",
            "pt",
            "pts",
            "doente",
            "doentes",
            "paciente",
            "pacientes",
            "patientin",
            "newborn",
            "newborns",
            "baby",
            "babies",
            "donor",
        ],
        "Homo sapiens",
    ),
    # The common laboratory animals as the portal's users also name them, and their plurals.
    **dict.fromkeys(
        ["maus", "souris", "ratón", "raton", "topo", "camundongo", "ratones", "mäuse", "mäusen", "topi", "ratinho"],
        "Mus musculus",
    ),
    **dict.fromkeys(["ratte", "rata", "ratto", "rato", "ratten", "ratti"], "Rattus norvegicus"),
    # Dutch, Polish, Swedish, Norwegian and Turkish, with the plurals and cases typed after "in", "of".
    **dict.fromkeys(
        [
            "muizen",
            "mysz",
            "myszy",
            "myszach",
            "myszami",
            "möss",
            "mössen",
            "musen",
            "fareler",
            "farelerde",
            "muis",
            "fare",
            *("мышь", "мыши", "мышей", "мышах"),
        ],
        "Mus musculus",
    ),
    **dict.fromkeys(
        [
            *("szczur", "szczury", "szczurów", "szczurach", "råtta", "råttor", "rotte", "rotter"),
            *("sıçan", "sıçanlar", "sıçanlarda", "sıçanların", "крыса", "крысы", "крыс"),
        ],
        "Rattus norvegicus",
    ),
    **dict.fromkeys(["rhesusaffe", "rhesusaffen"], "Macaca mulatta"),
    **dict.fromkeys(
        [
            "paziente",
            "pazienti",
            "patienten",
            "patiente",
            "patientes",
            "participantes",
            "partecipanti",
            "probanden",
            *("proefpersoon", "proefpersonen", "deelnemer", "patiënt", "испытуемый", "пациент", "пациентка"),
            "voluntarios",
            "voluntários",
            "volontari",
        ],
        "Homo sapiens",
    ),
    **dict.fromkeys(
        [
            "pez cebra",
            "peces cebra",
            "peixe zebra",
            "peixes zebra",
            "pesce zebra",
            "pesci zebra",
            "poisson zèbre",
            "poissons zèbres",
            "zebrafisch",
            "zebrafische",
            "zebrafischlarve",
            "zebrafischlarven",
        ],
        "Danio rerio",
    ),
    **dict.fromkeys(
        ["macaque", "macaques", "rhesus", "rhesus macaque", "rhesus monkey", "rhesus monkeys"],
        "Macaca mulatta",
    ),
    **dict.fromkeys(
        [
            "cyno",
            "cynomolgus",
            "cynomolgus macaque",
            "cynomolgus monkey",
            "crab eating macaque",
            "long tailed macaque",
        ],
        "Macaca fascicularis",
    ),
    **dict.fromkeys(
        ["pig tailed macaque", "pigtail macaque", "pigtailed macaque", "pigtail monkey"], "Macaca nemestrina"
    ),
    **dict.fromkeys(["japanese macaque", "snow monkey"], "Macaca fuscata"),
    **dict.fromkeys(["bonnet macaque"], "Macaca radiata"),
    **dict.fromkeys(["marmoset", "marmosets", "common marmoset", "marmoset monkey"], "Callithrix jacchus"),
    **dict.fromkeys(["chimpanzee", "chimp"], "Pan troglodytes"),
    **dict.fromkeys(["zebrafish", "zebra fish", "danio", "zebrafish larva", "zebrafish larvae"], "Danio rerio"),
    **dict.fromkeys(["goldfish"], "Carassius auratus"),
    **dict.fromkeys(
        ["fly", "flies", "fruit fly", "fruit flies", "drosophila", "vinegar fly"], "Drosophila melanogaster"
    ),
    **dict.fromkeys(["worm", "worms", "c. elegans", "c elegans", "elegans", "nematode"], "Caenorhabditis elegans"),
    # NCBI's name is the trinomial "Mustela putorius furo", which nwbinspector's binomial check rejects.
    **dict.fromkeys(["ferret", "ferrets", "mustela putorius furo"], "Mustela furo"),
    **dict.fromkeys(["cat", "cats", "domestic cat"], "Felis catus"),
    **dict.fromkeys(["pig", "pigs", "swine", "minipig", "mini pig"], "Sus scrofa"),
    **dict.fromkeys(["dog", "dogs", "canis lupus familiaris"], "Canis familiaris"),
    **dict.fromkeys(["gerbil", "gerbils", "mongolian gerbil", "mongolian jird"], "Meriones unguiculatus"),
    **dict.fromkeys(["hamster", "syrian hamster", "golden hamster"], "Mesocricetus auratus"),
    **dict.fromkeys(["guinea pig", "guinea pigs"], "Cavia porcellus"),
    **dict.fromkeys(["rabbit", "rabbits"], "Oryctolagus cuniculus"),
    **dict.fromkeys(["chinchilla"], "Chinchilla lanigera"),
    **dict.fromkeys(["degu"], "Octodon degus"),
    **dict.fromkeys(["gray short tailed opossum", "grey short tailed opossum"], "Monodelphis domestica"),
    **dict.fromkeys(["zebra finch", "zebra finches"], "Taeniopygia guttata"),
    **dict.fromkeys(["bengalese finch", "society finch"], "Lonchura striata"),
    **dict.fromkeys(["canary", "canaries"], "Serinus canaria"),
    **dict.fromkeys(["medaka", "japanese medaka"], "Oryzias latipes"),
    **dict.fromkeys(["pigeon", "rock dove"], "Columba livia"),
    **dict.fromkeys(["chicken", "chick"], "Gallus gallus"),
    **dict.fromkeys(["barn owl"], "Tyto alba"),
    **dict.fromkeys(["egyptian fruit bat"], "Rousettus aegyptiacus"),
    **dict.fromkeys(["big brown bat"], "Eptesicus fuscus"),
    **dict.fromkeys(["tree shrew"], "Tupaia belangeri"),
    **dict.fromkeys(["sheep", "lamb", "lambs", "ewe", "ewes", "ram", "rams"], "Ovis aries"),
    **dict.fromkeys(["piglet", "piglets", "sow", "sows"], "Sus scrofa"),
    **dict.fromkeys(["cattle", "calf", "calves", "bull calf", "heifer", "heifers"], "Bos taurus"),
    **dict.fromkeys(["frettchen", "furet", "furets"], "Mustela furo"),
    **dict.fromkeys(["xenopus", "african clawed frog"], "Xenopus laevis"),
    **dict.fromkeys(["honeybee", "honey bee"], "Apis mellifera"),
    **dict.fromkeys(["aplysia", "sea hare"], "Aplysia californica"),
    **dict.fromkeys(["common octopus"], "Octopus vulgaris"),
    **dict.fromkeys(["california two spot octopus", "two spot octopus"], "Octopus bimaculoides"),
    **dict.fromkeys(["axolotl"], "Ambystoma mexicanum"),
    **dict.fromkeys(["naked mole rat"], "Heterocephalus glaber"),
    **dict.fromkeys(["prairie vole"], "Microtus ochrogaster"),
    **dict.fromkeys(["deer mouse", "deer mice"], "Peromyscus maniculatus"),
    **dict.fromkeys(["mouse lemur", "grey mouse lemur", "gray mouse lemur"], "Microcebus murinus"),
    **dict.fromkeys(["desert locust"], "Schistocerca gregaria"),
    **dict.fromkeys(["budgerigar", "budgie"], "Melopsittacus undulatus"),
    **dict.fromkeys(["bearded dragon"], "Pogona vitticeps"),
    **EAST_ASIAN_SPECIES,
}
# Names shared by several species used in labs: picking one would guess a fact.
_SPECIES_GROUPS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ["monkey", "monkeys", "primate", "primates", "non human primate", "nonhuman primate", "nhp"],
        ("Macaca mulatta", "Callithrix jacchus"),
    ),
    **dict.fromkeys(["owl monkey", "owl monkeys", "night monkey", "aotus"], ("Aotus nancymaae", "Aotus trivirgatus")),
    **dict.fromkeys(["squirrel monkey", "squirrel monkeys", "saimiri"], ("Saimiri sciureus", "Saimiri boliviensis")),
    **dict.fromkeys(["baboon", "baboons", "papio"], ("Papio anubis", "Papio hamadryas")),
    **dict.fromkeys(["bat", "bats"], ("Eptesicus fuscus", "Rousettus aegyptiacus")),
    **dict.fromkeys(
        ["bird", "birds", "songbird", "songbirds", "finch", "finches"], ("Taeniopygia guttata", "Serinus canaria")
    ),
    **dict.fromkeys(["fish"], ("Danio rerio", "Carassius auratus")),
    **dict.fromkeys(["frog", "frogs"], ("Xenopus laevis", "Lithobates pipiens")),
    **dict.fromkeys(["opossum"], ("Monodelphis domestica", "Didelphis virginiana")),
}
_KNOWN_BINOMIALS = sorted({*_SPECIES_BY_NAME.values(), *(name for names in _SPECIES_GROUPS.values() for name in names)})
# Words that qualify an animal without naming its species ("adult male wild-type Cre mouse").
_QUALIFIERS = frozenset(
    {
        "lab",
        "laboratory",
        "wild",
        "type",
        "wildtype",
        "wt",
        "transgenic",
        "knockout",
        "knock",
        "in",
        "ko",
        "mutant",
        "cre",
        "adult",
        "male",
        "female",
        "juvenile",
        "young",
        "aged",
        "naive",
        "pregnant",
        "albino",
        "hooded",
        "a",
        "an",
        "the",
        "x",  # a cross: "Ai14 x Sst-Cre"
        "×",
    }
)
_NAMES = {**_SPECIES_BY_NAME, **{binomial.lower(): binomial for binomial in _KNOWN_BINOMIALS}}
_LATIN_WORDS = frozenset(word for binomial in _KNOWN_BINOMIALS for word in binomial.lower().split())
# English words of the common names: "owl monkey" is not the binomial "Owl monkey".
_COMMON_NAME_WORDS = (
    frozenset(word for name in (*_SPECIES_BY_NAME, *_SPECIES_GROUPS) for word in name.split())
    | _QUALIFIERS
    | {"animal", "animals", "shrew", "vole", "squirrel", "spiny", "cell", "cells"}
) - _LATIN_WORDS
_NCBI_TAXON = re.compile(r"^https?://purl\.obolibrary\.org/obo/NCBITaxon_\d+$")
_BINOMIAL = re.compile(r"^[a-z]+ [a-z]+$")
_ABBREVIATED_GENUS = re.compile(r"^([a-z])\.? ([a-z]+)$")
_SPECIES_EXAMPLE = (
    "give the Latin name (genus and species), e.g. Mus musculus, "
    "or its NCBI Taxonomy link, e.g. http://purl.obolibrary.org/obo/NCBITaxon_10090"
)


def normalize_species(text: str) -> str:
    """A Latin binomial ("Mus musculus") from a common name, a misspelling or a binomial.

    An NCBI Taxonomy link is kept as it is. Names shared by several species ("owl monkey") and
    unknown words next to a known animal ("spiny mouse") are refused rather than guessed.
    """
    cleaned = " ".join(text.split())
    if _NCBI_TAXON.match(cleaned):
        return cleaned.replace("https://", "http://")
    words, plain = _species_words(cleaned)
    key = " ".join(words)
    if key in _SPECIES_GROUPS:
        raise _several_species(cleaned, key)
    if key in _NAMES:
        return _NAMES[key]
    abbreviated = _ABBREVIATED_GENUS.match(key)
    if abbreviated:  # "M. musculus"
        initial, epithet = abbreviated.groups()
        matches = [
            name for name in _KNOWN_BINOMIALS if name.lower().startswith(initial) and name.endswith(f" {epithet}")
        ]
        if len(matches) == 1:
            return matches[0]
    found = _species_inside(words, plain, cleaned)
    if found:
        return found
    close = _misspelt(key)
    if close in _SPECIES_GROUPS:
        raise _several_species(cleaned, close)
    if close:
        return _NAMES[close]
    if _BINOMIAL.match(key) and not _COMMON_NAME_WORDS.intersection(words):
        genus, epithet = words
        return f"{genus.capitalize()} {epithet}"
    raise ValueError(f"'{cleaned}' is not a species name I know; {_SPECIES_EXAMPLE}.")


@dataclass(frozen=True)
class SpeciesMention:
    start: int
    end: int
    name: str  # the name as `normalize_species` reads it ("mouse" for "mice" too)
    species: str  # its Latin binomial


# Plurals and young the table above lists only in the singular.
_PLURALS = {"larvae": "larva", "flies": "fly", "finches": "finch", "mice": "mouse"}
# Names that mean a person only in the right sentence ("people in my lab").
_NOT_IN_PROSE = frozenset({"people", "person", "swiss", "fischer", "elegans", "chick", "danio"})
_LOWERCASE_ONLY = frozenset({"chick"})  # "a 3-day-old chick", not "Chick Webb"
_PROSE_WORD_RE = re.compile(r"[^\W_][\w.'/-]*")


# Katakana names stand alone among katakana ("ラット", not the "ラット" of "プラットフォーム"); Han names
# may sit inside a run ("大鼠前扣带皮层"), where no space sets a word off.
_KANA_OR_HAN_RE = re.compile(r"[\u30a0-\u30ff\u3400-\u9fff]")  # a message without them names none
_EAST_ASIAN_SPECIES_RE = re.compile(
    "|".join(
        rf"(?<![\u30a0-\u30ff]){re.escape(name)}(?![\u30a0-\u30ff])"
        for name in sorted(EAST_ASIAN_SPECIES, key=len, reverse=True)
    )
)


def species_mentions(text: str) -> list[SpeciesMention]:
    """Every animal (or person) named in running text ("in head-fixed mice", "an epilepsy patient",
    "young ferrets", "C57BL/6J"), longest names first, each with its binomial. Group names
    ("monkey", "bird") and qualifiers are passed over: they do not say which species."""
    words = [(m.start(), m.end(), m.group().lower().rstrip(".,")) for m in _PROSE_WORD_RE.finditer(text)]
    found: list[SpeciesMention] = []
    covered = [False] * len(words)
    for length in (4, 3, 2, 1):
        for index in range(len(words) - length + 1):
            if any(covered[index : index + length]):
                continue
            phrase = " ".join(word for _, _, word in words[index : index + length]).replace("-", " ")
            start, end = words[index][0], words[index + length - 1][1]
            name = _species_key(phrase) or (phrase if phrase in _LOWERCASE_ONLY and text[start:end].islower() else None)
            if name is None:
                continue
            found.append(SpeciesMention(start, end, name, _NAMES[name]))
            covered[index : index + length] = [True] * length
    for m in _EAST_ASIAN_SPECIES_RE.finditer(text) if _KANA_OR_HAN_RE.search(text) else ():
        if not any(m.start() < mention.end and mention.start < m.end() for mention in found):
            found.append(SpeciesMention(m.start(), m.end(), m.group(), EAST_ASIAN_SPECIES[m.group()]))
    found.sort(key=lambda mention: mention.start)
    # "infant marmosets", "newborn lambs": a word for a person before an animal describes the animal.
    return [
        mention
        for mention, after in zip(found, [*found[1:], None], strict=False)
        if not (
            mention.species == "Homo sapiens"
            and after is not None
            and after.species != "Homo sapiens"
            and re.fullmatch(r"[\s-]*", text[mention.end : after.start])
        )
    ]


def abbreviated_binomial(text: str) -> str | None:
    """The one species a message names as "M. mulatta" or "D. rerio": the genus's initial and the species
    name of a binomial the portal knows."""
    found = {
        binomial
        for m in _ABBREVIATED_RE.finditer(text)
        for binomial in _KNOWN_BINOMIALS
        if binomial[0] == m.group("initial") and binomial.split()[1] == m.group("species")
    }
    return found.pop() if len(found) == 1 else None


_ABBREVIATED_RE = re.compile(r"(?<![\w.])(?P<initial>[A-Z])\.\s?(?P<species>[a-z]{3,})\b")


def _species_key(phrase: str) -> str | None:
    if phrase in _NOT_IN_PROSE:
        return None
    *before, last = phrase.split(" ")
    singular = _PLURALS.get(last) or (last[:-2] if last.endswith(("ches", "shes", "xes")) else "")
    whole_singular = " ".join([*before, singular]) if before and singular else ""  # "Bengalese finches"
    for candidate in (phrase, _PLURALS.get(phrase, ""), phrase[:-1] if phrase.endswith("s") else "", whole_singular):
        if candidate and candidate in _NAMES:
            return candidate
    return None


def _species_words(text: str) -> tuple[list[str], list[bool]]:
    """The lower-case words that may name the animal, and for each whether it was written as a plain
    word: "Sst-Cre" or "PV" look like a gene or strain, "spiny" or "Bonnet" do not."""
    words: list[str] = []
    plain: list[bool] = []
    for token in text.split():
        token_is_plain = token.isalpha() and not (len(token) > 1 and token.isupper())
        token_is_plain = token_is_plain and sum(letter.isupper() for letter in token) <= 1
        for word in re.split(r"[_\-–]", token.lower()):
            if word and word not in _QUALIFIERS:
                words.append(word)
                plain.append(token_is_plain)
    return words, plain


def _species_inside(words: list[str], plain: list[bool], cleaned: str) -> str | None:
    """The one species named inside a longer text ("C57BL/6J mouse", "GAD2-Cre mice"), or None."""
    covered = [False] * len(words)
    found: set[str] = set()
    for length in range(len(words), 0, -1):  # longest names first: "pig tailed macaque" before "macaque"
        for start in range(len(words) - length + 1):
            phrase = " ".join(words[start : start + length])
            if phrase in _NAMES and not any(covered[start : start + length]):
                found.add(_NAMES[phrase])
                covered[start : start + length] = [True] * length
    if not found:
        return None
    if len(found) > 1:
        raise ValueError(f"'{cleaned}' names more than one species ({', '.join(sorted(found))}); give one.")
    species = found.pop()
    # A plain word next to the animal may name another species with the same common noun ("spiny
    # mouse" is Acomys, not Mus); genotypes and strains ("GAD2-Cre", "PV", "Ai14") may not.
    unknown = [word for word, done, is_plain in zip(words, covered, plain, strict=True) if not done and is_plain]
    if unknown:
        raise ValueError(
            f"'{cleaned}' may be a species other than {species} ('{' '.join(unknown)}' is not a name I know); "
            f"give the Latin name, e.g. {species} if it is that one."
        )
    return species


def _misspelt(key: str) -> str | None:
    """The name `key` is a typing slip of. Short names differ from each other by one letter ("rat",
    "cat"; "mouse", "moose"), so for them only swapped, missing or extra letters count as slips."""
    if len(key) < 5:
        return None
    close = difflib.get_close_matches(key, [*_NAMES, *_SPECIES_GROUPS], n=1, cutoff=0.8)
    if not close:
        return None
    if len(key) < 8 and sorted(key) != sorted(close[0]) and abs(len(key) - len(close[0])) != 1:
        return None
    return close[0]


def _several_species(cleaned: str, key: str) -> ValueError:
    return ValueError(
        f"'{cleaned}' covers several species; give the Latin name, e.g. {' or '.join(_SPECIES_GROUPS[key])}."
    )


# --- sex -----------------------------------------------------------------------------------------

# An animal's sex in Dutch, Polish, Czech, Turkish, Norwegian, Swedish and Hungarian ("Muis SV-17, vrouwtje"),
# languages whose words the reader looks for as it does the English ones.
OTHER_LANGUAGE_SEX: dict[str, str] = {
    **dict.fromkeys(["mannetje", "samiec", "samec", "erkek", "hann", "hannkjønn", "hím", "hane", "самец"], "M"),
    **dict.fromkeys(
        ["vrouwtje", "samica", "samice", "dişi", "hunn", "hunnkjønn", "nőstény", "kobieta", "hona", "самка"], "F"
    ),
}
_SEX_BY_WORD: dict[str, str] = {
    **OTHER_LANGUAGE_SEX,
    **dict.fromkeys(["m", "male", "males", "man", "boy", "♂"], "M"),
    **dict.fromkeys(["f", "female", "females", "woman", "girl", "♀"], "F"),
    **dict.fromkeys(["u", "unknown", "unk", "?", "not known", "n/a", "na", "unsure", "undetermined"], "U"),
    **dict.fromkeys(["o", "other", "intersex"], "O"),
    **dict.fromkeys(
        [
            "männlich",
            "maennlich",
            "macho",
            "mâle",
            "male.",
            "maschio",
            "masculino",
            "homme",
            "mann",
            "osu",
            "dansei",
            "mannelijk",
            "varón",
            "varon",
            "オス",
            "雄",
            "雄性",
            "男性",
            "수컷",
            "남성",
        ],
        "M",
    ),
    **dict.fromkeys(
        [
            "weiblich",
            "hembra",
            "femelle",
            "femmina",
            "femenino",
            "feminino",
            "femme",
            "frau",
            "fêmea",
            "femea",
            "mesu",
            "josei",
            "vrouwelijk",
            "メス",
            "雌",
            "雌性",
            "女性",
            "암컷",
            "여성",
        ],
        "F",
    ),
    # C. elegans is the one species NWB records by karyotype.
    **dict.fromkeys(["xx", "hermaphrodite"], "XX"),
    "xo": "XO",
}


def normalize_sex(text: str) -> str:
    """M, F, U or O (and XX/XO, the C. elegans forms) from words such as "male" or "f"."""
    key = " ".join(text.lower().split()).rstrip(".")
    if key in _SEX_BY_WORD:
        return _SEX_BY_WORD[key]
    raise ValueError(f"'{text.strip()}' is not a sex NWB records; say male, female, unknown or other.")


# --- age -----------------------------------------------------------------------------------------

# The units of an age in Japanese and Chinese ("12週齢", "8周龄", "3ヶ月", "64歳").
EAST_ASIAN_AGE_UNITS: dict[str, str] = {
    **dict.fromkeys(["週齢", "週", "週間", "周龄", "周", "주령", "주"], "W"),
    **dict.fromkeys(["ヶ月齢", "ヶ月", "か月", "カ月", "ケ月", "个月", "個月", "月齢", "月龄", "개월령", "개월"], "M"),
    **dict.fromkeys(["日齢", "日龄", "日", "天", "일령"], "D"),
    **dict.fromkeys(["歳", "才", "岁", "세"], "Y"),
}
# The units in Polish, Czech, Turkish, Norwegian, Swedish and Russian ("12 tygodni", "10 haftalık", "8 veckor").
OTHER_LANGUAGE_AGE_UNITS: dict[str, str] = {
    **dict.fromkeys(["lat", "let", "roků", "yaşında", "yaş", "år", "года", "лет", "год"], "Y"),
    **dict.fromkeys(
        ["miesięcy", "miesiące", "měsíců", "měsíce", "aylık", "ay", "måneder", "månader", "месяца", "месяцев", "месяц"],
        "M",
    ),
    **dict.fromkeys(
        ["tygodni", "tygodnie", "týdnů", "týdny", "haftalık", "hafta", "uker", "veckor", "недель", "недели"], "W"
    ),
    **dict.fromkeys(["dni", "dnů", "günlük", "gün", "dager", "dagar", "дней", "дня"], "D"),
}
_AGE_UNITS: dict[str, str] = {
    **EAST_ASIAN_AGE_UNITS,
    **OTHER_LANGUAGE_AGE_UNITS,
    **dict.fromkeys(["y", "yr", "yrs", "year", "years", "yo", "y/o", "y.o"], "Y"),
    # The same units as the portal's users write them in German, Spanish, Portuguese, French, Italian.
    **dict.fromkeys(
        ["jahre", "jahr", "años", "año", "anos", "ano", "ans", "an", "anni", "anno", "jaar", "sai"],
        "Y",
    ),
    **dict.fromkeys(["monate", "monat", "meses", "mes", "mois", "mesi", "mese", "maanden", "maand", "kagetsu"], "M"),
    **dict.fromkeys(
        [
            "wochen",
            "woche",
            "semanas",
            "semana",
            "semaines",
            "semaine",
            "settimane",
            "settimana",
            "weken",
            "week",
            "shuukan",
            "shukan",
        ],
        "W",
    ),
    **dict.fromkeys(
        ["tage", "tag", "días", "dias", "día", "dia", "jours", "jour", "giorni", "giorno", "dagen", "dag", "nichi"], "D"
    ),
    **dict.fromkeys(["m", "mo", "mos", "mon", "month", "months"], "M"),
    **dict.fromkeys(["w", "wk", "wks", "week", "weeks"], "W"),
    # Birds count from hatching, which is their birth: "95 dph", "120 days post hatch".
    **dict.fromkeys(["d", "day", "days", "dph", "dpH"], "D"),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours"], "H"),
}
_ISO_DURATION = re.compile(
    r"^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?"
    r"(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$"
)
_POSTNATAL_DAY = re.compile(r"^(?:p|pnd|postnatal day)\s*(\d+)$")
_POSTNATAL_DAYS = re.compile(
    r"^(?:between\s+)?(?:p|pnd|postnatal days?)\s*(\d+)\s*(?:-|–|to|and)\s*(?:p|pnd)?\s*(\d+)$"
)
_EMBRYONIC = re.compile(r"^(?:e|embryonic(?: day)?|gestational day|gd)\s*\d+(?:\.\d+)?$")
_POST_FERTILISATION = re.compile(r"^\d+(?:\.\d+)?\s*(?:dpf|hpf|(?:days|hours)\s+post[\s-]fertili[sz]ation)$")
_ISO_PARTS = re.compile(r"(\d+(?:\.\d+)?)([YMWDHS])")
_AGE_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([^\W\d_]+)")  # and "49 años", "39歳"
_AGE_RANGE = re.compile(r"^(?:between\s+)?(\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(\d+(?:\.\d+)?)\s*([a-z]+)$")
_AGE_EXAMPLE = "give it in days, weeks, months or years, e.g. 90 days"
# Only to order the bounds of a range; nwbinspector compares them the same way, from today's calendar.
_DAYS_PER_UNIT = {"Y": 365.25, "M": 30.4375, "W": 7.0, "D": 1.0}
_DAYS_PER_TIME_UNIT = {"H": 1 / 24, "M": 1 / 1440, "S": 1 / 86400}
# A fraction that makes whole smaller units is written in them ("1.5 years" → P18M): DANDI allows
# a fraction only in the last part of a duration.
_SMALLER_UNIT = {"Y": ("M", 12), "W": ("D", 7), "D": ("H", 24)}


def normalize_age(text: str) -> str:
    """An ISO 8601 duration: "90 days" → "P90D", "8 weeks" → "P8W", "P90" (postnatal day) → "P90D".

    Ranges keep nwbinspector's form, "P8W/P10W" (and "P90D/" for "at least 90 days"), youngest
    first. Words without a number ("adult") and embryonic ages ("E15") are refused.
    """
    raw = " ".join(text.split())
    if _ISO_DURATION.match(raw.upper()):
        return raw.upper()
    if "/" in raw:  # a range in ISO form, e.g. P60D/P90D or P90D/ (at least 90 days)
        lower, upper = raw.upper().replace(" ", "").split("/", 1)
        if all(not bound or _ISO_DURATION.match(bound) for bound in (lower, upper)) and (lower or upper):
            return _age_range(lower, upper, raw)
    key = re.sub(r"(\d),(\d)", r"\1.\2", raw.lower())  # decimal comma
    key = _NUMBER_WORD_RE.sub(lambda m: str(_number(m.group())), key)  # "nine weeks", "twenty-one days"
    key = re.sub(r"\by\s*/\s*o\b|\by\.o\.?", "yo", key)  # "27 y/o"
    key = re.sub(r"\bdays?\s+post[\s-]?hatch(?:ing)?\b", "dph", key)
    key = re.sub(r"(\d)\s*-\s*([a-z]+)\s*-\s*old\b", r"\1 \2 old", key)  # "12-week-old"
    key = re.sub(r"^(?:生後|出生后)", "", key)  # "生後8週": eight weeks after birth
    key = re.sub(r"\b(old|of age|age|aged|approximately|approx|about|around)\b|[~≈,]|(?<!\d)\.|\.(?!\d)", " ", key)
    key = " ".join(key.split())
    if _POST_FERTILISATION.match(key):
        raise ValueError(
            f"'{raw}' counts from fertilisation: give the age as a duration and say it is counted from "
            "fertilisation (age P7D, age counted from: gestational), or give the age after hatching."
        )
    if _EMBRYONIC.match(key):
        raise ValueError(
            f"'{raw}' is not an age NWB accepts: it counts from conception, NWB from birth; "
            "give the postnatal age, e.g. P21D, or the date of birth."
        )
    postnatal = _POSTNATAL_DAY.match(key)
    if postnatal:
        return f"P{int(postnatal.group(1))}D"
    postnatal_range = _POSTNATAL_DAYS.match(key)
    if postnatal_range:
        low, high = postnatal_range.groups()
        return _age_range(f"P{int(low)}D", f"P{int(high)}D", raw)
    age_range = _AGE_RANGE.match(key)
    if age_range and age_range.group(3) in _AGE_UNITS:
        low, high, unit = age_range.groups()
        unit = _AGE_UNITS[unit]
        return _age_range(_duration({unit: Decimal(low)}, raw), _duration({unit: Decimal(high)}, raw), raw)
    parts = _AGE_PART.findall(key)
    leftover = _AGE_PART.sub("", key).replace("and", "").strip()
    if parts and not leftover and all(unit in _AGE_UNITS for _, unit in parts):
        amounts: dict[str, Decimal] = {}
        for number, unit in parts:
            if _AGE_UNITS[unit] in amounts:
                raise ValueError(f"'{raw}' gives the {unit} twice; {_AGE_EXAMPLE}.")
            amounts[_AGE_UNITS[unit]] = Decimal(number)
        return _duration(amounts, raw)
    if re.fullmatch(r"\d+(?:\.\d+)?", key):
        raise ValueError(f"'{raw}' has no unit; {_AGE_EXAMPLE}.")
    raise ValueError(f"'{raw}' is not an age NWB accepts; {_AGE_EXAMPLE}.")


_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        (
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        )
    )
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_NUMBER_WORD_RE = re.compile(
    rf"\b(?:(?:{'|'.join(_TENS)})(?:[\s-](?:{'|'.join(_NUMBER_WORDS)}))?|{'|'.join(_NUMBER_WORDS)}|a|an)\b"
    r"(?=\s*-?\s*(?:days?|weeks?|months?|years?|yrs?)\b)"
)


def _number(words: str) -> int:
    """ "nine" → 9, "twenty-one" → 21, "a" (as in "a year") → 1."""
    if words in ("a", "an"):
        return 1
    parts = re.split(r"[\s-]", words)
    return sum(_TENS.get(part, _NUMBER_WORDS.get(part, 0)) for part in parts)


def age_from_birth(date_of_birth: str, session_start: str) -> str:
    """The subject's age at the session in days ("P90D"): whole days are exact, months are not.

    Both dates may be written in any form `normalize_date` and `normalize_datetime` read; the
    session's calendar date is the one written, in its own timezone.
    """
    born = _parse_written(_without_zone_name(date_of_birth)[0], need_time=False).date()
    session = _parse_written(_without_zone_name(session_start)[0], need_time=False).date()
    if born > session:
        raise ValueError(
            f"The date of birth ({born.isoformat()}) is after the session ({session.isoformat()}); "
            "check both dates, or give the age instead, e.g. 90 days."
        )
    return f"P{(session - born).days}D"


def _age_range(lower: str, upper: str, raw: str) -> str:
    if lower and upper and _approximate_days(lower) >= _approximate_days(upper):
        raise ValueError(
            f"'{raw}' is a range whose upper bound is not above its lower bound; "
            "give it youngest first, e.g. 8-10 weeks or P60D/P90D."
        )
    return f"{lower}/{upper}"


def _approximate_days(duration: str) -> float:
    date_part, _, time_part = duration[1:].partition("T")
    days = sum(float(number) * _DAYS_PER_UNIT[unit] for number, unit in _ISO_PARTS.findall(date_part))
    days += sum(float(number) * _DAYS_PER_TIME_UNIT[unit] for number, unit in _ISO_PARTS.findall(time_part))
    return days


def _duration(amounts: dict[str, Decimal], raw: str) -> str:
    for unit, (smaller, factor) in _SMALLER_UNIT.items():
        value = amounts.get(unit)
        if value is not None and value % 1 and not (value * factor) % 1:
            del amounts[unit]
            amounts[smaller] = amounts.get(smaller, Decimal(0)) + value * factor
    order = [unit for unit in "YMWDH" if unit in amounts]
    if any(amounts[unit] % 1 for unit in order[:-1]):
        raise ValueError(f"'{raw}' has a fraction before its last unit; give whole numbers, e.g. 1 year 6 months.")
    text = {unit: f"{amounts[unit].normalize():f}" for unit in order}
    date_part = "".join(f"{text[unit]}{unit}" for unit in "YMWD" if unit in text)
    time_part = f"T{text['H']}H" if "H" in text else ""
    return f"P{date_part}{time_part}"


# --- dates and times -----------------------------------------------------------------------------

_NUMERIC_DATE = re.compile(r"\b(\d{1,2})([/.\-])(\d{1,2})\2(\d{2,4})\b")
_DATE_EXAMPLE = "2024-03-15 14:30"
# Two different defaults: a component the text leaves out takes a different value in each parse.
_PROBE_DEFAULTS = (datetime(2001, 1, 1, 1, 1, 1), datetime(2002, 2, 2, 2, 2, 2))
_RELATIVE_DAY = re.compile(r"\b(yesterday|today|tonight|tomorrow|now|ago|last|next|this)\b", re.IGNORECASE)
_VAGUE_WORDS = re.compile(r"\b(?:around|about|approximately|approx|circa|ca|roughly)\b\.?|[~≈]", re.IGNORECASE)
# "GMT+2" means two hours ahead of UTC; dateutil reads it the POSIX way round, as -02:00.
_UTC_PLUS = re.compile(r"\b(?:UTC|GMT)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?\b", re.IGNORECASE)


_DAY_PART = re.compile(r"\s+in\s+the\s+(morning|afternoon|evening)\b|\s+at\s+night\b", re.IGNORECASE)
_CLOCK_WITH_DOT = re.compile(r"(?<![\d.:])(\d{1,2})[.h](\d{2})(?![\d.:])")


class _ZoneAbbreviationError(ValueError):
    """dateutil met a zone abbreviation ("CET", "EST") that names no single offset."""


def normalize_datetime(text: str, timezone: str) -> str:
    """An ISO 8601 date and time with its UTC offset, from common written forms.

    A time written without a zone is taken to be in `timezone`; a zone name at the end
    ("2024-03-15 14:30 Europe/Paris") or an offset ("+02:00", "Z") wins. Day-first dots
    ("15.08.2025") are European; slashes that read both ways are refused, as are relative days
    ("yesterday") and dates in the future.
    """
    zone = _zone(timezone)
    raw, named_zone = _without_zone_name(text)
    zone = named_zone or zone
    parsed = _parse_written(raw, need_time=True)
    moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)
    if moment > datetime.now(tz=zone):
        raise ValueError(f"'{text.strip()}' is in the future; check the date.")
    return moment.isoformat()


def normalize_date(text: str) -> str:
    """An ISO 8601 date (YYYY-MM-DD), e.g. for a date of birth; future dates are refused."""
    parsed = _parse_written(" ".join(text.split()), need_time=False)
    if parsed.date() > date.today():
        raise ValueError(f"'{text.strip()}' is in the future; check the date.")
    return parsed.date().isoformat()


def _without_zone_name(text: str) -> tuple[str, ZoneInfo | None]:
    words = text.split()
    if len(words) > 1 and _is_zone_name(words[-1]):
        return " ".join(words[:-1]), ZoneInfo(words[-1])
    return " ".join(words), None


def _parse_written(raw: str, *, need_time: bool) -> datetime:
    from dateutil import parser

    relative = _RELATIVE_DAY.search(raw)
    if relative:
        raise ValueError(
            f"'{raw}' is not a date I can read: '{relative.group(1)}' depends on the day it was said; "
            f"give the calendar date, e.g. {_DATE_EXAMPLE}."
        )
    text = _FOREIGN_MONTH_RE.sub(lambda m: _FOREIGN_MONTHS[plain_word(m.group())], raw)  # "2 mars 2024"
    text = _DATE_PARTICLES_RE.sub(" ", text)  # "20 de junio de 2024", "le 3", "am 5."
    text = _UTC_PLUS.sub(lambda match: f" {match[1]}{int(match[2]):02d}:{match[3] or '00'}", text)
    text = _CLOCK_WITH_DOT.sub(r"\1:\2", text)  # "9.30", "2.30pm", "14h20" (never "31.03.2024")
    text = _DAY_PART.sub(lambda m: " am" if m.group(1).lower() == "morning" else " pm", text)  # "9:30 in the morning"
    text = re.sub(r"(\d)(?:st|nd|rd|th)?\s+of\s+", r"\1 ", text, flags=re.IGNORECASE)  # "3rd of October"
    text = re.sub(r"\b(?:um|uhr|à|a las|alle|om)\b", " ", text, flags=re.IGNORECASE)  # "um 14:00 Uhr"
    text = " ".join(_VAGUE_WORDS.sub(" ", text).split())
    numeric = _NUMERIC_DATE.search(text)
    day_first = False
    if numeric:
        first, separator, second = int(numeric.group(1)), numeric.group(2), int(numeric.group(3))
        if separator != "." and first <= 12 and second <= 12 and first != second:
            raise ValueError(
                f"'{numeric.group(0)}' could be read day-first or month-first; "
                f"write the date as year-month-day, e.g. {_DATE_EXAMPLE}."
            )
        day_first = separator == "." or first > 12
    try:
        readings: list[datetime] = [
            parser.parse(text, default=default, dayfirst=day_first, tzinfos=_explicit_zone)
            for default in _PROBE_DEFAULTS
        ]
    except _ZoneAbbreviationError as error:
        raise ValueError(
            f"'{error}' in '{raw}' can mean several offsets; give a zone name such as Europe/Paris "
            "or an offset such as +02:00."
        ) from error
    except (ValueError, OverflowError) as error:
        raise ValueError(f"'{raw}' is not a date I can read; write it like {_DATE_EXAMPLE}.") from error
    first_reading, second_reading = readings
    missing_date = any(
        getattr(first_reading, part) != getattr(second_reading, part) for part in ("year", "month", "day")
    )
    if missing_date:
        raise ValueError(f"'{raw}' lacks a full date (day, month and year); write it like {_DATE_EXAMPLE}.")
    if need_time and first_reading.hour != second_reading.hour:
        raise ValueError(f"'{raw}' has no time of day; add it, e.g. {_DATE_EXAMPLE}.")
    # Minutes or seconds left out ("10 am", "14:30") are zero, not the probe's.
    if first_reading.minute != second_reading.minute:
        first_reading = first_reading.replace(minute=0)
    if first_reading.second != second_reading.second:
        first_reading = first_reading.replace(second=0)
    return first_reading


# Month names in the languages the portal's users write dates in (French, Spanish, Portuguese,
# Italian, German, Dutch), for dateutil, which reads English ones.
_FOREIGN_MONTHS: dict[str, str] = {
    **dict.fromkeys(["janvier", "enero", "janeiro", "gennaio", "januar", "janner", "januari"], "January"),
    **dict.fromkeys(["fevrier", "febrero", "fevereiro", "febbraio", "februar", "februari"], "February"),
    **dict.fromkeys(["mars", "marzo", "marco", "marz", "maerz", "maart"], "March"),
    **dict.fromkeys(["avril", "abril", "aprile"], "April"),
    **dict.fromkeys(["mai", "mayo", "maio", "maggio", "mei"], "May"),
    **dict.fromkeys(["juin", "junio", "junho", "giugno", "juni"], "June"),
    **dict.fromkeys(["juillet", "julio", "julho", "luglio", "juli"], "July"),
    **dict.fromkeys(["aout", "agosto", "augustus"], "August"),
    **dict.fromkeys(["septembre", "septiembre", "setiembre", "setembro", "settembre"], "September"),
    **dict.fromkeys(["octobre", "octubre", "outubro", "ottobre", "oktober"], "October"),
    **dict.fromkeys(["novembre", "noviembre", "novembro"], "November"),
    **dict.fromkeys(["decembre", "diciembre", "dezembro", "dicembre", "dezember"], "December"),
}
FOREIGN_MONTH = (
    r"(?:janvier|enero|janeiro|gennaio|januar|jänner|januari|février|fevrier|febrero|fevereiro|febbraio"
    r"|februar|februari|mars|marzo|março|märz|maerz|maart|avril|abril|aprile|mai|mayo|maio|maggio|mei|juin|junio"
    r"|junho|giugno|juni|juillet|julio|julho|luglio|juli|août|aout|agosto|augustus|septembre|septiembre|setiembre"
    r"|setembro|settembre|octobre|octubre|outubro|ottobre|oktober|novembre|noviembre|novembro|décembre|decembre"
    r"|diciembre|dezembro|dicembre|dezember)"
)
_FOREIGN_MONTH_RE = re.compile(rf"(?<![\w-]){FOREIGN_MONTH}(?![\w-])", re.IGNORECASE)
# Words between a date's parts in those languages: "le 20 mars", "20 de junio de 2024", "am 5. März".
_DATE_PARTICLES_RE = re.compile(
    r"(?<![\w-])(?:le|el|de|del|di|den|der|às|em|en|il|op|om|am(?=\s+\d{1,2}\.))(?![\w-])", re.IGNORECASE
)


def plain_word(word: str) -> str:
    """Lower case without accents, to compare words as people type them: "März" → "marz"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def _explicit_zone(name: str | None, offset: int | None) -> tzinfo | None:
    """The zone written in the text, for dateutil: an offset ("+02:00", "Z") or nothing."""
    if offset is not None:
        return fixed_offset(timedelta(seconds=offset))
    if name is not None:
        raise _ZoneAbbreviationError(name)
    return None


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"'{timezone}' is not a timezone name; use one like Europe/Paris.") from error


def _is_zone_name(word: str) -> bool:
    if "/" not in word and word.upper() not in ("UTC", "GMT"):
        return False
    try:
        ZoneInfo(word)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


# --- keywords and free text ----------------------------------------------------------------------


# Keywords help find a dataset; past a few dozen they only slow every page that shows them.
MAX_KEYWORDS = 50


def normalize_keywords(text: str) -> list[str]:
    """Keywords split on commas, semicolons or new lines, without duplicates; at most MAX_KEYWORDS."""
    words = [word.strip() for word in re.split(r"[,;\n]", text) if word.strip()]
    if not words:
        raise ValueError("Give at least one keyword, e.g. V1, Neuropixels.")
    unique: dict[str, str] = {}
    for word in words:
        unique.setdefault(word.lower(), word)
    if len(unique) > MAX_KEYWORDS:
        raise ValueError(f"That is {len(unique)} keywords; give at most {MAX_KEYWORDS}, the ones that best find it.")
    return list(unique.values())


def normalize_subject_id(text: str) -> str:
    """The id as given, with "/" (which DANDI cannot use in paths) replaced by "-" and without the number
    sign before a number ("#4402" is animal 4402)."""
    return re.sub(r"^#\s?(?=\w)", "", text.strip()).replace("/", "-")


def _free_text(text: str) -> str:
    return text.strip()


def normalize_institution(text: str) -> str:
    """ "the University of Lisbon" → "University of Lisbon": the article is sentence, not name."""
    return re.sub(r"^the\s+(?=\S)", "", text.strip(), flags=re.IGNORECASE)


def post_fertilisation_age(raw: str) -> str | None:
    """ "7 dpf" → "P7D", "36 hpf" → "PT36H", "5 days post fertilization" → "P5D"; None for other ages.
    NWB keeps such an age with Subject.age__reference "gestational"."""
    key = " ".join(raw.strip().lower().split())
    m = re.fullmatch(
        r"(\d+(?:\.\d+)?)\s*(dpf|hpf|days?\s+post[\s-]fertili[sz]ation|hours?\s+post[\s-]fertili[sz]ation)", key
    )
    if m is None:
        return None
    number, unit = m.groups()
    amount = Decimal(number)
    if unit == "hpf" or unit.startswith("hour"):
        return f"PT{amount.normalize():f}H"
    return f"P{amount.normalize():f}D"


_AGE_REFERENCES = {
    "birth": "birth",
    "from birth": "birth",
    "postnatal": "birth",
    "after birth": "birth",
    "hatching": "birth",
    "from hatching": "birth",
    "after hatching": "birth",
    "gestational": "gestational",
    "gestation": "gestational",
    "fertilisation": "gestational",
    "fertilization": "gestational",
    "from fertilisation": "gestational",
    "from fertilization": "gestational",
    "post fertilisation": "gestational",
    "post fertilization": "gestational",
    "conception": "gestational",
    "from conception": "gestational",
    "dpf": "gestational",
    "hpf": "gestational",
}


def normalize_age_reference(raw: str) -> str:
    """ "birth" or "gestational" (NWB's two), from words such as "from fertilisation" or "after hatching"."""
    key = " ".join(raw.strip().lower().replace("-", " ").split())
    key = re.sub(r"^(?:counted\s+|measured\s+)?", "", key)
    if key in _AGE_REFERENCES:
        return _AGE_REFERENCES[key]
    raise ValueError(f"'{raw}' is not an age reference; say birth or gestational (from fertilisation).")


# "together", "at the same time", "with the recording": the camera started when the recording did.
_TOGETHER = re.compile(r"\b(?:together|at the same time|simultaneously|with the recording|at once)\b")
# A time in a sentence: "2.5", "2.5 s", "300 ms later", "1 s before the recording", "-1.5".
_SECONDS = re.compile(
    r"(?<![\w.])(?P<sign>[-+−])?\s*(?P<number>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>ms|milliseconds?|s|secs?|seconds?|min|mins|minutes?)?\b"
    r"(?:\s+(?P<side>after|later|before|earlier))?"
)
_UNIT_SECONDS = {"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "min": 60.0, "mins": 60.0}


def normalize_seconds_after(raw: str) -> float:
    """Seconds after the recording started that the camera started, from a value or a sentence:
    "2.5", "2.5 s", "it started 300 ms later", "1 s before the recording" (negative), "together" (0).
    Refused when the text holds no time, or several different ones."""
    text = " ".join(raw.strip().lower().replace("−", "-").split())
    times = {_seconds_of(match) for match in _SECONDS.finditer(text)}
    if not times and _TOGETHER.search(text):
        return 0.0
    if len(times) == 1:
        return times.pop()
    what = "several times" if times else "no time"
    raise ValueError(
        f"'{raw}' holds {what} after the recording's start; give one, in seconds: e.g. 0 if they started "
        "together, 2.5 if the camera started 2.5 s later, or -1 if it started 1 s earlier."
    )


def _seconds_of(match: re.Match[str]) -> float:
    unit = match["unit"] or ""
    scale = 60.0 if unit.startswith("min") else _UNIT_SECONDS.get(unit, 1.0)
    value = float(match["number"]) * scale
    return -value if match["sign"] == "-" or match["side"] in ("before", "earlier") else value


_RATE = re.compile(r"^(?P<number>\d+(?:\.\d+)?)\s*(?:hz|fps|frames?\s*(?:per|/)\s*s(?:ec(?:ond)?)?|/s)?$")


def normalize_frame_rate(raw: str) -> float:
    """Frames per second: "30", "29.97 fps", "60 Hz"."""
    match = _RATE.match(" ".join(raw.strip().lower().split()))
    if match is None or not 0 < float(match["number"]) <= 100_000:
        raise ValueError(f"'{raw}' is not a frame rate; give frames per second, e.g. 30 or 29.97.")
    return float(match["number"])


_NORMALIZERS: dict[str, Callable[[str], Any]] = {
    "behaviour_start_s": normalize_seconds_after,
    "pose_rate_hz": normalize_frame_rate,
    "age__reference": normalize_age_reference,
    "experimenter": normalize_experimenter,
    "institution": normalize_institution,
    "keywords": normalize_keywords,
    "species": normalize_species,
    "sex": normalize_sex,
    "age": normalize_age,
    "date_of_birth": normalize_date,
    "subject_id": normalize_subject_id,
}


# Fields of a few words (names, ids, places), which never hold markup, a line break or a control
# character; the others are free text, which may run over several lines. Experimenters may be given
# one a line.
_FREE_TEXT_FIELDS = frozenset({"experiment_description", "session_description", "keywords"})
_LINES_ALLOWED = _FREE_TEXT_FIELDS | {"experimenter"}
# An HTML or XML tag: "<b>", "</i>", "<script", "<!--". A lone "<" or ">" is text ("GAL4>UAS-GCaMP").
_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?]")
# Characters that change how the text around them is shown, without being seen: bidirectional
# overrides and isolates, which can make "evil.exe" read as "exe.live".
_INVISIBLE_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def unfit_characters(raw: str, *, lines: bool = False, markup: bool = False) -> str | None:
    """Why `raw` cannot be stored as typed, or None: a control character (line breaks and tabs only
    where `lines`), or markup (unless `markup`: free text may say "<5 Hz" or quote a tag)."""
    for char in raw:
        allowed_space = lines and char in "\n\r\t"
        if (unicodedata.category(char) == "Cc" and not allowed_space) or char in _INVISIBLE_CONTROLS:
            shown = "a line break" if char in "\n\r" else f"the control character U+{ord(char):04X}"
            return f"contains {shown}, which this field does not take"
    tag = None if markup else _MARKUP.search(raw)
    if tag is not None:
        return f"contains markup (“{tag.group()}…”), which this field does not take"
    return None


def normalize_field(name: str, raw: str, *, timezone: str = "UTC") -> Any:
    """The value of field `name` (see `fields.py`) in NWB's form; ValueError says what to give instead."""
    if name not in FIELDS:
        raise KeyError(f"unknown metadata field {name!r}")
    if not raw or not raw.strip():
        raise ValueError(f"The {FIELDS[name].label} is empty; give it, e.g. {FIELDS[name].example}.")
    problem = unfit_characters(raw.strip(), lines=name in _LINES_ALLOWED, markup=name in _FREE_TEXT_FIELDS)
    if problem is not None:
        raise ValueError(f"The {FIELDS[name].label} {problem}; give it as plain text, e.g. {FIELDS[name].example}.")
    if name == "session_start_time":
        return normalize_datetime(raw, timezone)
    return _NORMALIZERS.get(name, _free_text)(raw)
