"""The words the rule-based reader (conversions.language.rules) knows, lowercase, one phrase an item:
titles, name particles and abbreviations; words and names of institutions; the words of methods,
of research and of the conversation; brain areas and species; filler, negation, headings and
questions; words that are never a name or an id; file extensions and format names that are also
ordinary words.
"""

from __future__ import annotations

from conversions.nwb.normalizers import OTHER_LANGUAGE_SEX


def listed(paragraph: str) -> frozenset[str]:
    """The items of a comma-separated paragraph: long word lists stay readable."""
    return frozenset(item.strip() for item in paragraph.split(",") if item.strip())


# --- people ---------------------------------------------------------------------------------------

# Titles before a name ("Dr. Jane Smith", "Prof. Kumar").
TITLES = frozenset({"dr", "doctor", "prof", "professor", "mr", "mrs", "ms", "mx", "miss", "sir", "dame"})
# Lowercase words inside a name ("Ludwig van Beethoven", "Ana de la Cruz").
NAME_PARTICLES = listed(
    """van, von, de, der, den, da, di, del, della, du, la, le, bin, ibn, al, el, dos, das, ten, ter, zu, y"""
)
# Words that say who without naming anyone ("a student recorded it").
NOT_NAMES = frozenset(OTHER_LANGUAGE_SEX) | listed(
    """someone, somebody, nobody, everyone, everybody, people, person, student, students, postdoc, postdocs,
    technician, colleague, colleagues, team, lab, group, both, two, three, several, others, myself,
    male, female, macho, hembra, varón, varon, mâle, femelle, homme, femme, männlich, weiblich, maschio, femmina,
    masculino, feminino, femenino, fêmea, femea, mesu, osu, josei, dansei, mannelijk, vrouwelijk, hermaphrodite,
    hoi, gozaimasu, ohayou, kochira, watashi, konnichiwa, hajimemashite, moin, servus, grüezi,
    rest, later, wrong, form, best, regards, cheers, kind, meeting, running, asap, soon, tomorrow, tonight, busy,
    quick, quickly, mismo, misma, staff, korrektur, correction, corrección, correção, correzione, correctie,
    kleine, petite, pequeña, piccola, vrouw, kvinna, kobieta, mężczyzna, juvenile, old, young,
    aged, core, facility, former"""
)
# Words in front of a name that are not the name: greetings, roles, "Name", "Who", "Myself".
BEFORE_NAME = listed(
    """hi, hello, hey, bonjour, hola, buenas, ciao, hallo, salut, namaste, greetings, dear, ola, olá, soy, sono,
    myself, me, name, who, my, our, the, a, an, i, im, i'm, am, is, it's, its, this, lab, tech, technician, here,
    postdoc, student, phd, pi, supervisor, manager, sir, madam, sir/madam, -, –, —, by, was, were, yes, ok, so,
    undergrad, grad, colleague, labmate, salve, salam, guten, tag, boa, tarde, dia, shalom, merhaba, buongiorno,
    buonasera, bonsoir, grüezi, goedemorgen, hajimemashite, konnichiwa, ohayou, c'est, voici, ich, bin, je, suis,
    eu, sou, io, yo, quem, foi, die, aufnahmen, registrazioni, enregistrements, registros, hoi, moin, servus,
    gozaimasu, ohayou, kochira, watashi, wa, mismo, misma, best, regards, cheers, thanks, sincerely, that, das,
    war, only, just, subject, recorded, frau, herr, sra, signora, signor, mme, mlle"""
)
# Words for what someone is ("PI", "a clinician"): who, never where.
ROLE_WORDS = listed(
    """phd, student, postdoc, pi, tech, technician, clinician, neurosurgeon, neurologist, epileptologist, resident,
    scholar, fellow, researcher, scientist, professor, manager, engineer, intern, subject, is, head"""
)
# Words left dangling at the end of a value by the next label ("Jane Smith and I work at …").
CONNECTORS = listed("""and, &, plus, also, the, my, our, his, her, their, with, while, i, we, she, he""")


# --- institutions ---------------------------------------------------------------------------------

# Words that make a name an institution's ("University of Lagos", "Institut Pasteur").
INSTITUTION_WORDS = listed(
    """university, universität, universitat, université, universite, universidad, universidade, università,
    universiteit, universitet, uniwersytet, univ, institute, institut, instituto, istituto, college,
    school, hospital, clinic, klinikum, center, centre, foundation, academy, polytechnic, politecnico,
    polytechnique, campus, laboratory, consortium, station, stazione, estación, inc, ltd, gmbh, corporation,
    école, ecole, zentrum, instytut, üniversitesi, universitesi, hochschule, akademie, akademia, politechnika,
    universitätsklinikum, universitätsklinik, uniklinik, centro, ziekenhuis, sjukhus, sykehus"""
)
# Institutions named without a keyword. Single words count only as the segment's first word, so a
# person called "Jane Stanford" stays a person.
KNOWN_INSTITUTIONS = listed(
    """mit, ucl, nyu, hhmi, janelia, epfl, eth, ethz, eth zurich, eth zürich, ucla, ucsf, ucsd, uc berkeley,
    uc davis, uc irvine, uc san diego, berkeley, caltech, stanford, harvard, yale, princeton, columbia,
    oxford, cambridge, cshl, cold spring harbor, salk, max planck, mpi, nih, nimh, ninds, kcl, imperial,
    swc, sainsbury wellcome, ist austria, champalimaud, weizmann, riken, karolinska, cornell, jhu,
    johns hopkins, upenn, mcgill, baylor, emory, rockefeller, northwestern, uchicago, allen institute,
    francis crick, pasteur, inserm, cnrs, donders, charité, charite, kaist, tsinghua, kyoto, toronto, ubc,
    mgh, kaust, dartmouth, vanderbilt, wustl, washu, umich, ut austin, ut southwestern, utsw, cmu,
    carnegie mellon, georgia tech, nerf, imec, kavli, mcgovern, picower, jackson laboratory, jax, lmu,
    tum, technion, neuro-electronics research flanders"""
)


# --- the experiment -------------------------------------------------------------------------------

# Words that name how the data were taken: a phrase with one describes an experiment even unasked.
METHOD_WORDS = listed(
    """recording, recordings, recorded, record, imaging, imaged, image, patch, clamp, whole-cell, calcium, two-photon,
    2p, widefield, photometry, neuropixels, probe, probes, tetrode, tetrodes, electrode, electrodes, array, arrays,
    eeg, ecog, seeg, ieeg, lfp, emg, meg, fmri, ephys, electrophysiology, electrophysiological, optogenetics,
    optogenetic, miniscope, mea, juxtacellular, intracellular, extracellular, single-unit, units, spikes, sorting"""
)
# Words that make a phrase a description rather than a name.
DESCRIPTION_WORDS = listed(
    """recording, recordings, recorded, imaging, imaged, neurons, neuron, neuronal, neural, cells, cell,
    units, spikes, spiking, activity, responses, response, cortex, cortical, hippocampus, hippocampal,
    striatum, striatal, thalamus, thalamic, cerebellum, amygdala, brain, lfp, eeg, ecog, emg, ephys,
    electrophysiology, electrophysiological, patch, clamp, calcium, two-photon, 2p, widefield, photometry,
    neuropixels, probe, probes, tetrode, tetrodes, electrode, electrodes, stimulation, stimulus, stimuli,
    visual, auditory, somatosensory, olfactory, motor, barrel, whisker, task, behavior, behaviour,
    behavioral, behavioural, session, experiment, trials, trial, awake, anesthetized, anaesthetized,
    head-fixed, freely, running, licking, sleep, slice, slices, vivo, vitro, acute, chronic, optogenetics,
    optogenetic, gratings, grating, natural, scenes, movies, passive, viewing, learning, navigation, maze,
    reward, pupil, locomotion, during, while, baseline, control, silencing, inhibition, excitation"""
)
# Brain areas by their abbreviations ("V1", "CA1"): words of a description, never a name.
BRAIN_AREAS = listed(
    """v1, v2, v4, v5, mt, m1, m2, s1, s2, a1, ca1, ca2, ca3, dg, lgn, dlgn, sc, mec, lec, pfc, mpfc, acc,
    ofc, vta, snc, snr, bla, rsp, rsc, ppc, alm, lip, fef, it, nac, str, dms, dls, hpc, ec, ob, piriform,
    sniff"""
)
# First words of a part that never goes on with the description before it.
NOT_A_CONTINUATION_START = listed(
    """i, we, she, he, it, they, this, that, these, those, so, but, and, please, sorry, thanks, thank, btw, also,
    hey, hi, hello, its, it's, im, i'm, dear, hola, ciao, bonjour, hallo,
    which, who, my, our, sex, age, born, aged, id, subject, animal, mouse, rat, session, recorded, started"""
)


# --- the subject ----------------------------------------------------------------------------------

# Species by their scientific and common names.
SPECIES_NAMES = listed(
    """mus musculus, house mouse, mouse, mice, rattus norvegicus, rat, rats, homo sapiens, human, humans,
    macaca mulatta, macaca fascicularis, macaca nemestrina, rhesus macaque, rhesus monkey, rhesus,
    macaque, monkey, callithrix jacchus, marmoset, danio rerio, zebrafish, zebra fish,
    drosophila melanogaster, drosophila, fruit fly, mustela putorius furo, ferret, felis catus, cat,
    sus scrofa, pig, meriones unguiculatus, gerbil, taeniopygia guttata, zebra finch, xenopus laevis,
    caenorhabditis elegans, c. elegans, gallus gallus, chicken, oryctolagus cuniculus, rabbit,
    tupaia belangeri, tree shrew, guinea pig, hamster, bat, octopus"""
)
# Any "Genus species" of these genera counts as a species even when not listed above.
GENERA = listed(
    """mus, rattus, homo, macaca, danio, drosophila, callithrix, mustela, felis, sus, taeniopygia,
    caenorhabditis, xenopus, meriones, gallus, canis, oryctolagus, mesocricetus, cavia, peromyscus,
    octodon, tupaia, saimiri, aotus, ovis, bos, apis, aplysia, oryzias, heterocephalus, chlorocebus,
    papio, octopus"""
)
# Every word of those names.
SPECIES_WORDS = frozenset(word for name in SPECIES_NAMES for word in name.split())
# Words of an age, never a person nor a place ("…, female, adult — Goethe University Frankfurt").
AGE_WORDS = frozenset({"adult", "adults", "juvenile", "young", "old", "aged", "newborn", "neonate", "infant"})
# Words that describe an animal without naming it, in the languages the portal's users write.
NOT_IDS = listed(
    """adult, juvenile, young, old, aged, pup, neonate, neonatal, embryo, boy, girl, man, woman, male, female,
    macho, hembra, mâle, femelle, männlich, weiblich, maschio, femmina, fêmea, femea, mesu, osu, animal, subject,
    mouse, rat, the animal,
    the subject, late, unknown, later, tbd, n/a, none, english, french, german, spanish, italian, portuguese, chinese,
    japanese, korean, dutch, nr, no, nummer, numero, número, tag"""
)


# --- dates ----------------------------------------------------------------------------------------

# Words that make a value a date without a digit ("yesterday", "Monday morning").
DATE_WORDS = listed(
    """today, yesterday, monday, tuesday, wednesday, thursday, friday, saturday, sunday, morning, afternoon,
    evening, noon, midnight, january, february, march, april, may, june, july, august, september, october,
    november, december"""
)


# --- the conversation -----------------------------------------------------------------------------

# Filler: words that carry no content of their own in a command or a refusal.
FILLER_WORDS = listed(
    """a, all, alright, also, am, an, and, any, anyway, are, as, at, be, but, by, can, could, did, do, does,
    done, for, from, go, guess, have, hello, here, hey, hi, i, i'd, i'll, i'm, im, in, is, it, it's, its,
    just, kindly, let, let's, lets, like, me, my, need, now, of, oh, on, one, please, pls, plz, really,
    right, so, some, that, that's, the, them, then, there, there's, these, thing, things, this, those, to,
    too, um, uh, us, want, wanna, we, well, will, with, would, yet, you, your, thanks, thank, conversion,
    converting, convert, file, files, data, dataset, recording, recordings, session, whole, process, job, nwb,
    run, runs, moment, sec, second, bit, okay, ok, already, more, ahead, maybe, might, perhaps, think, was, were,
    been, being, has, had"""
)
# Words that negate the command after them ("don't cancel", "doesn't look right").
NEGATORS = listed(
    """not, no, never, don't, dont, doesn't, doesnt, didn't, didnt, shouldn't, won't, wont, can't, cant,
    cannot, without, isn't, aren't, wasn't"""
)
# Words around a refusal ("I don't have the subject info").
REFUSAL_FILLER = listed(
    """info, information, details, detail, field, fields, question, questions, ones, about, exact, either,
    sure, know, sorry, for, now, time, being, metadata, stuff, part, value, values, answer"""
)
# Words of a heading before a colon ("Here's everything:", "Summary of the session:").
HEADINGS = listed(
    """here, here's, heres, below, following, everything, everything's, summary, overview, notes, note, facts,
    needed, requested, asked, attached, uploaded, new, my, our, ps, fyi, ok, so, use, these, values"""
)
# Words that open a question.
QUESTION_WORDS = listed(
    """what, what's, whats, how, how's, why, where, when, which, who, can, could, is, are, do, does, will,
    would, should, may, shall"""
)
# Words after a value that are not part of it ("Stanford instead", "MIT please").
TRAILING_CHATTER = frozenset(
    {"instead", "please", "thanks", "then", "sorry", "too", "probably", "maybe", "here", "obviously", "lol", "haha"}
)
# Abbreviations whose period ends neither a sentence nor a value.
ABBREVIATIONS = listed(
    """dr, prof, mr, mrs, ms, mx, st, jr, sr, vs, etc, e.g, i.e, eg, ie, approx, ca, univ, inst, dept, fig,
    al, inc, ltd, co, no, nr, rer, nat, med, phil, dott, mgr, ing, exp, expt, im, a.m, p.m"""
)
# Words that speak of the conversation, the portal or the files rather than the experiment.
CONVERSATION_WORDS = listed(
    """description, describe, abstract, paragraph, paste, typo, typing, submit, portal, upload, uploaded, uploading,
    file, files, folder, you, your, later, delay, sec, minute, question, questions, field, fields, metadata, form,
    wrong, mistake, correct, correction, swapped, ok, okay, fine, thanks, thank, phone, busy, sorry"""
)


# --- files and formats ----------------------------------------------------------------------------

# Words that, next to a format name, only say that it is the format ("it's SpikeGLX data").
FORMAT_CONTEXT_WORDS = listed(
    """format, formats, system, acquisition, recorded, acquired, using, used, via, through, software, type,
    output, saved, exported"""
)
# Format names that are also ordinary words: they count only when they are all the segment says.
AMBIGUOUS_FORMAT_WORDS = {"axon": "axon", "cheetah": "neuralynx"}
# The ends of file names: "Convert recording.bin" names a file, not a field and not a format.
FILE_EXTENSIONS = listed(
    """bin, meta, dat, rhd, rhs, ns1, ns2, ns3, ns4, ns5, ns6, nev, ncs, nse, ntt, nvt, abf, plx, pl2, smr,
    smrx, edf, continuous, oebin, nwb, xml, json, mat, h5, hdf5, zip, tar, gz, tdms, raw, csv, txt, npy,
    kwd, kwik"""
)


# --- never a subject's name -----------------------------------------------------------------------

# Words that are never a subject's name ("the rat is called Pepe" names one; "mouse Recording" does not).
NAME_STOPWORDS = (
    FILLER_WORDS | NOT_NAMES | DESCRIPTION_WORDS | BRAIN_AREAS | SPECIES_WORDS | INSTITUTION_WORDS | NEGATORS
)
