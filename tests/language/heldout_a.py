# ruff: noqa: E501 (messages as they were typed, kept on one line each)
"""Held-out set A: realistic chat messages written before the reader's rules were changed for them.
Each entry: (message, the question it answers, the values the portal should store)."""

from __future__ import annotations

ASKED_FIRST = ("experimenter", "institution", "experiment_description", "subject_id", "species", "sex", "age")
CRITICAL = ("experimenter", "institution", "experiment_description")
SUBJECT = ("subject_id", "species", "sex", "age")

HELD_OUT_A: list[tuple[str, tuple[str, ...], dict[str, str]]] = [
    # --- answers to the first request ------------------------------------------------------------
    (
        "I'm Ada Byron from the University of Edinburgh. We do whole-cell recordings in acute slices of mouse "
        "barrel cortex to look at short-term plasticity. The slice came from mouse AB-12, male, 9 weeks old.",
        ASKED_FIRST,
        {
            "experimenter": "Byron, Ada",
            "institution": "University of Edinburgh",
            "experiment_description": "whole-cell recordings in acute slices of mouse barrel cortex to look at "
            "short-term plasticity",
            "location": "barrel cortex",
            "subject_id": "AB-12",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P9W",
        },
    ),
    (
        "experimenter: Priya Raman\ninstitution: IISc\ndescription: Neuropixels recordings from rat hippocampus "
        "during a linear track task\nsubject: R23, male Long-Evans rat, 4 months",
        ASKED_FIRST,
        {
            "experimenter": "Raman, Priya",
            "institution": "IISc",
            "experiment_description": "Neuropixels recordings from rat hippocampus during a linear track task",
            "location": "hippocampus",
            "subject_id": "R23",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P4M",
            "strain": "Long-Evans",
        },
    ),
    (
        "jane doe, UCL, two-photon calcium imaging in V1 during visual stimulation, mouse m17 female 12 wks",
        ASKED_FIRST,
        {
            "experimenter": "Doe, Jane",
            "institution": "UCL",
            "experiment_description": "two-photon calcium imaging in V1 during visual stimulation",
            "location": "V1",
            "subject_id": "m17",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P12W",
        },
    ),
    (
        "Hello, my name is Jürgen Weber, I am PhD student at the Charité in Berlin. We are making patch clamp "
        "recordings of interneurons in hippocampal slices. The slice is from mouse 2291, it was female and 28 days old.",
        ASKED_FIRST,
        {
            "experimenter": "Weber, Jürgen",
            "institution": "Charité",
            "experiment_description": "patch clamp recordings of interneurons in hippocampal slices",
            "subject_id": "2291",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P28D",
        },
    ),
    (
        "Hi! I am Dr. María Fernández of the Instituto Cajal (Madrid). We study sleep spindles in the thalamus "
        "with tetrodes in rats. The rat is called Pepe, male, 3 months old.",
        ASKED_FIRST,
        {
            "experimenter": "Fernández, María",
            "institution": "Instituto Cajal",
            "experiment_description": "sleep spindles in the thalamus with tetrodes in rats",
            "location": "thalamus",
            "subject_id": "Pepe",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P3M",
        },
    ),
    (
        "Hello, I am Wei Zhang, postdoc in Peking University. Experiment is miniscope calcium imaging of mPFC when "
        "mouse do social interaction. Subject ID: WZ-05, male, 10 weeks old C57BL/6J.",
        ASKED_FIRST,
        {
            "experimenter": "Zhang, Wei",
            "institution": "Peking University",
            "experiment_description": "miniscope calcium imaging of mPFC when mouse do social interaction",
            "location": "mPFC",
            "subject_id": "WZ-05",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P10W",
            "strain": "C57BL/6J",
        },
    ),
    (
        "Nice to meet you. I am Kenji Sato from RIKEN CBS. Our experiment: widefield imaging of dorsal cortex in "
        "head-fixed mice during licking task. Mouse number is 0412, female, age is 15 week.",
        ASKED_FIRST,
        {
            "experimenter": "Sato, Kenji",
            "institution": "RIKEN CBS",
            "experiment_description": "widefield imaging of dorsal cortex in head-fixed mice during licking task",
            "location": "dorsal cortex",
            "subject_id": "0412",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P15W",
        },
    ),
    (
        "Bonjour, I am Camille Martin, from Institut Pasteur in Paris. We record the auditory cortex of gerbils "
        "with silicon probes while they listen to vocalisations. The gerbil is G7, a female of 6 months.",
        ASKED_FIRST,
        {
            "experimenter": "Martin, Camille",
            "institution": "Institut Pasteur",
            "experiment_description": "record the auditory cortex of gerbils with silicon probes while they listen "
            "to vocalisations",
            "location": "auditory cortex",
            "subject_id": "G7",
            "species": "Meriones unguiculatus",
            "sex": "F",
            "age": "P6M",
        },
    ),
    (
        "Good morning. Myself Rahul Verma, doing my PhD at NCBS. Kindly note the experiment is in vivo tetrode "
        "recording from rat CA1 during sleep. Rat ID is RV_11, male, age 90 days.",
        ASKED_FIRST,
        {
            "experimenter": "Verma, Rahul",
            "institution": "NCBS",
            "experiment_description": "in vivo tetrode recording from rat CA1 during sleep",
            "location": "CA1",
            "subject_id": "RV_11",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P90D",
        },
    ),
    (
        "The PI is Helen Marsh, recordings by Tom Gallagher. Sainsbury Wellcome Centre. We imaged superior "
        "colliculus neurons with two-photon while mice ran on a wheel. Mouse TG093, male, 5 months.",
        ASKED_FIRST,
        {
            "experimenter": "Gallagher, Tom",
            "institution": "Sainsbury Wellcome Centre",
            "experiment_description": "imaged superior colliculus neurons with two-photon while mice ran on a wheel",
            "location": "superior colliculus",
            "subject_id": "TG093",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P5M",
        },
    ),
    (
        "Mei Lin Ong and Daniel Frost, Princeton Neuroscience Institute. Two-photon imaging of posterior cortex "
        "during an evidence accumulation task in virtual reality. Mouse: K62, F, 14 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Ong, Mei Lin; Frost, Daniel",
            "institution": "Princeton Neuroscience Institute",
            "experiment_description": "Two-photon imaging of posterior cortex during an evidence accumulation task "
            "in virtual reality",
            "location": "posterior cortex",
            "subject_id": "K62",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P14W",
        },
    ),
    (
        "This is Anna van der Berg at the Netherlands Institute for Neuroscience in Amsterdam. Experiment: Utah "
        "array recordings in V4 of rhesus macaques during a curve tracing task. Monkey Bruno, male, 9 years.",
        ASKED_FIRST,
        {
            "experimenter": "van der Berg, Anna",
            "institution": "Netherlands Institute for Neuroscience",
            "experiment_description": "Utah array recordings in V4 of rhesus macaques during a curve tracing task",
            "location": "V4",
            "subject_id": "Bruno",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P9Y",
        },
    ),
    (
        "Dr. Omar Haddad, neurosurgery, Mount Sinai. These are intracranial EEG recordings (sEEG) from an epilepsy "
        "patient doing a verbal memory task. Participant P07, female, 34 years old.",
        ASKED_FIRST,
        {
            "experimenter": "Haddad, Omar",
            "institution": "Mount Sinai",
            "experiment_description": "intracranial EEG recordings (sEEG) from an epilepsy patient doing a verbal "
            "memory task",
            "subject_id": "P07",
            "species": "Homo sapiens",
            "sex": "F",
            "age": "P34Y",
        },
    ),
    (
        "Lab tech here - Grace O'Connor, Cold Spring Harbor Laboratory. fiber photometry of dopamine in NAc during "
        "reward task. animal: GO-3, male mouse, P60",
        ASKED_FIRST,
        {
            "experimenter": "O'Connor, Grace",
            "institution": "Cold Spring Harbor Laboratory",
            "experiment_description": "fiber photometry of dopamine in NAc during reward task",
            "location": "NAc",
            "subject_id": "GO-3",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P60D",
        },
    ),
    (
        "hi, Luca Bianchi (postdoc), EPFL. light-sheet imaging of whole-brain activity in zebrafish larvae during "
        "optomotor response. fish ID: zf_0317, 6 dpf, sex unknown",
        ASKED_FIRST,
        {
            "experimenter": "Bianchi, Luca",
            "institution": "EPFL",
            "experiment_description": "light-sheet imaging of whole-brain activity in zebrafish larvae during "
            "optomotor response",
            "subject_id": "zf_0317",
            "species": "Danio rerio",
            "sex": "U",
            "age": "P6D",
        },
    ),
    (
        "Me: Katarzyna Nowak. Place: Janelia. We do two-photon imaging of the fan-shaped body in head-fixed flies "
        "walking on a ball. Fly F14, female, 5 days old.",
        ASKED_FIRST,
        {
            "experimenter": "Nowak, Katarzyna",
            "institution": "Janelia",
            "experiment_description": "two-photon imaging of the fan-shaped body in head-fixed flies walking on a ball",
            "location": "fan-shaped body",
            "subject_id": "F14",
            "species": "Drosophila melanogaster",
            "sex": "F",
            "age": "P5D",
        },
    ),
    (
        "Ji-ho Park, KAIST. whole-brain calcium imaging in C. elegans, freely moving. worm w3, hermaphrodite, "
        "young adult",
        ASKED_FIRST,
        {
            "experimenter": "Park, Ji-ho",
            "institution": "KAIST",
            "experiment_description": "whole-brain calcium imaging in C. elegans, freely moving",
            "subject_id": "w3",
            "species": "Caenorhabditis elegans",
            "sex": "XX",
        },
    ),
    (
        "Hello. Yuki Tanaka, University of Tokyo. We record from auditory cortex of awake marmosets using "
        "Neuropixels while they hear calls from other marmosets. Subject is Momo, female, 4 years old.",
        ASKED_FIRST,
        {
            "experimenter": "Tanaka, Yuki",
            "institution": "University of Tokyo",
            "experiment_description": "record from auditory cortex of awake marmosets using Neuropixels while they "
            "hear calls from other marmosets",
            "location": "auditory cortex",
            "subject_id": "Momo",
            "species": "Callithrix jacchus",
            "sex": "F",
            "age": "P4Y",
        },
    ),
    (
        "Hannah Cohen at the Max Planck Florida Institute for Neuroscience. Two-photon imaging of orientation maps "
        "in visual cortex of young ferrets, right after eye opening. Ferret F-221, female, P35.",
        ASKED_FIRST,
        {
            "experimenter": "Cohen, Hannah",
            "institution": "Max Planck Florida Institute for Neuroscience",
            "experiment_description": "Two-photon imaging of orientation maps in visual cortex of young ferrets, "
            "right after eye opening",
            "location": "visual cortex",
            "subject_id": "F-221",
            "species": "Mustela furo",
            "sex": "F",
            "age": "P35D",
        },
    ),
    (
        "it's Lars Eriksen from Duke. we record HVC in singing zebra finches with a chronic silicon probe. bird is "
        "or12bk5 (male of course), 120 days post hatch",
        ASKED_FIRST,
        {
            "experimenter": "Eriksen, Lars",
            "institution": "Duke",
            "experiment_description": "record HVC in singing zebra finches with a chronic silicon probe",
            "location": "HVC",
            "subject_id": "or12bk5",
            "species": "Taeniopygia guttata",
            "sex": "M",
            "age": "P120D",
        },
    ),
    (
        "Dmitri Ivanov, McGill University, Montreal. Acute recordings in cat LGN with multielectrode arrays under "
        "anesthesia. Subject C12, male adult cat, 2 years.",
        ASKED_FIRST,
        {
            "experimenter": "Ivanov, Dmitri",
            "institution": "McGill University",
            "experiment_description": "Acute recordings in cat LGN with multielectrode arrays under anesthesia",
            "location": "LGN",
            "subject_id": "C12",
            "species": "Felis catus",
            "sex": "M",
            "age": "P2Y",
        },
    ),
    (
        "Hi, this is Mateus Oliveira at Universidade de São Paulo. we did ECoG recordings over somatosensory cortex "
        "in minipigs during tactile stimulation. pig P4, female, 8 months",
        ASKED_FIRST,
        {
            "experimenter": "Oliveira, Mateus",
            "institution": "Universidade de São Paulo",
            "experiment_description": "ECoG recordings over somatosensory cortex in minipigs during tactile stimulation",
            "location": "somatosensory cortex",
            "subject_id": "P4",
            "species": "Sus scrofa",
            "sex": "F",
            "age": "P8M",
        },
    ),
    (
        "- Experimenter: Dr. Emily Chen\n- Institution: Stanford University\n- Experiment: chronic Neuropixels "
        "recordings in mouse striatum during a go/no-go task\n- Subject ID: EC-M04\n- Species: Mus musculus\n"
        "- Sex: F\n- Age: 11 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Chen, Emily",
            "institution": "Stanford University",
            "experiment_description": "chronic Neuropixels recordings in mouse striatum during a go/no-go task",
            "location": "striatum",
            "subject_id": "EC-M04",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P11W",
        },
    ),
    (
        "experimenter = Sven Müller\ninstitution = University of Bonn\nexperiment = in vitro MEA recordings of "
        "organotypic hippocampal slice cultures\nsubject_id = SC-2022-07\nspecies = rat\nsex = male\nage = P7",
        ASKED_FIRST,
        {
            "experimenter": "Müller, Sven",
            "institution": "University of Bonn",
            "experiment_description": "in vitro MEA recordings of organotypic hippocampal slice cultures",
            "subject_id": "SC-2022-07",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P7D",
        },
    ),
    (
        "so basically I'm Giulia Romano and I work in the Bianchi lab at the University of Padova and we put "
        "tetrodes in the medial entorhinal cortex of rats to record grid cells while they forage in a big open "
        "field and the rat I'm uploading is called Nutella she's a female about 5 months old",
        ASKED_FIRST,
        {
            "experimenter": "Romano, Giulia",
            "lab": "Bianchi lab",
            "institution": "University of Padova",
            "experiment_description": "put tetrodes in the medial entorhinal cortex of rats to record grid cells "
            "while they forage in a big open field",
            "location": "medial entorhinal cortex",
            "subject_id": "Nutella",
            "species": "Rattus norvegicus",
            "sex": "F",
            "age": "P5M",
        },
    ),
    (
        "Hey 👋 Chloé Lefèvre here from ENS in Paris 🇫🇷 we do patch-seq on human cortical slices from "
        "neurosurgery tissue 🧠 donor H19-042, male, 45 y",
        ASKED_FIRST,
        {
            "experimenter": "Lefèvre, Chloé",
            "institution": "ENS",
            "experiment_description": "patch-seq on human cortical slices from neurosurgery tissue",
            "subject_id": "H19-042",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P45Y",
        },
    ),
    (
        "It was Tariq Khan who recorded it, at Imperial College London. Whole-cell recordings from layer 5 "
        "pyramidal neurons in mouse motor cortex slices. Cell c3 of slice S2, from mouse TK-88, male, 7 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Khan, Tariq",
            "institution": "Imperial College London",
            "experiment_description": "Whole-cell recordings from layer 5 pyramidal neurons in mouse motor cortex slices",
            "location": "motor cortex",
            "cell_id": "c3",
            "slice_id": "S2",
            "subject_id": "TK-88",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P7W",
        },
    ),
    (
        "I'm the PI, Robert Hall. My student Aisha Bello did the recordings. We are at Baylor College of Medicine "
        "in Houston. It's Neuropixels in the superior colliculus of mice watching looming stimuli. Mouse AB231, "
        "female, 3 months.",
        ASKED_FIRST,
        {
            "experimenter": "Bello, Aisha",
            "institution": "Baylor College of Medicine",
            "experiment_description": "Neuropixels in the superior colliculus of mice watching looming stimuli",
            "location": "superior colliculus",
            "subject_id": "AB231",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P3M",
        },
    ),
    (
        "Olumide Adeyemi, University of Toronto. Recording date: 10 Feb 2024, start 13:05. Head-fixed mice, "
        "silicon probe in ALM during delayed response task. Mouse OA-7, male, 16 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Adeyemi, Olumide",
            "institution": "University of Toronto",
            "session_start_time": "2024-02-10T13:05:00+00:00",
            "experiment_description": "Head-fixed mice, silicon probe in ALM during delayed response task",
            "location": "ALM",
            "subject_id": "OA-7",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P16W",
        },
    ),
    (
        "Sofia Rossi here, SISSA Trieste. Recorded on 3 May 2024 around 9.30. It's whole-cell patch clamp in rat "
        "somatosensory cortex slices, looking at dendritic integration. Rat R-5, male, P21.",
        ASKED_FIRST,
        {
            "experimenter": "Rossi, Sofia",
            "institution": "SISSA",
            "session_start_time": "2024-05-03T09:30:00+00:00",
            "experiment_description": "whole-cell patch clamp in rat somatosensory cortex slices, looking at "
            "dendritic integration",
            "location": "somatosensory cortex",
            "subject_id": "R-5",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P21D",
        },
    ),
    (
        "Ingrid Nilsson from NTNU. Neuropixels in MEC of freely moving rats. session started 2:15pm Oslo time on "
        "14 June 2023. Rat 26021, male, 4 months.",
        ASKED_FIRST,
        {
            "experimenter": "Nilsson, Ingrid",
            "institution": "NTNU",
            "experiment_description": "Neuropixels in MEC of freely moving rats",
            "location": "MEC",
            "session_start_time": "2023-06-14T14:15:00+02:00",
            "timezone": "Europe/Oslo",
            "subject_id": "26021",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P4M",
        },
    ),
    (
        "Dr Pieter de Vries (Donders Institute, Nijmegen). Started at 14h20 CET on 19/01/2023. Experiment: laminar "
        "probe recordings in V1 of macaque monkeys during figure-ground task. Monkey: Kiwi, male, rhesus, 11 yrs",
        ASKED_FIRST,
        {
            "experimenter": "de Vries, Pieter",
            "institution": "Donders Institute",
            "session_start_time": "2023-01-19T14:20:00+01:00",
            "experiment_description": "laminar probe recordings in V1 of macaque monkeys during figure-ground task",
            "location": "V1",
            "subject_id": "Kiwi",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P11Y",
        },
    ),
    (
        "Tomáš Novák, Institute of Physiology of the Czech Academy of Sciences. We record place cells in rats on a "
        "rotating arena, tetrodes in CA1. Rat: Franta, male, 5 month old.",
        ASKED_FIRST,
        {
            "experimenter": "Novák, Tomáš",
            "institution": "Institute of Physiology of the Czech Academy of Sciences",
            "experiment_description": "record place cells in rats on a rotating arena, tetrodes in CA1",
            "location": "CA1",
            "subject_id": "Franta",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P5M",
        },
    ),
    (
        "I'm Minh Nguyen, grad student at University of California, Berkeley. two-photon holographic stimulation "
        "in mouse V1 while recording responses. mouse MN12, female, 8 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Nguyen, Minh",
            "institution": "University of California, Berkeley",
            "experiment_description": "two-photon holographic stimulation in mouse V1 while recording responses",
            "location": "V1",
            "subject_id": "MN12",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P8W",
        },
    ),
    (
        "Elif Yılmaz, ETH Zurich. Chronic two-photon imaging of dendritic spines in mouse motor cortex during "
        "motor learning. Mouse EY-19, male, 10 weeks old, Thy1-GFP line M.",
        ASKED_FIRST,
        {
            "experimenter": "Yılmaz, Elif",
            "institution": "ETH Zurich",
            "experiment_description": "Chronic two-photon imaging of dendritic spines in mouse motor cortex during "
            "motor learning",
            "location": "motor cortex",
            "subject_id": "EY-19",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P10W",
            "strain": "Thy1-GFP line M",
        },
    ),
    (
        "Smith, Allen Institute. Neuropixels visual coding, mouse 612345, male, 110 days",
        ASKED_FIRST,
        {
            "experimenter": "Smith",
            "institution": "Allen Institute",
            "experiment_description": "Neuropixels visual coding",
            "subject_id": "612345",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P110D",
        },
    ),
    (
        "I'm Nadia, from the Salk Institute. Experiment is optogenetic tagging of dopamine neurons in VTA with "
        "Neuropixels. mouse 3312 (DAT-Cre), female, 14 wks",
        ASKED_FIRST,
        {
            "experimenter": "Nadia",
            "institution": "Salk Institute",
            "experiment_description": "optogenetic tagging of dopamine neurons in VTA with Neuropixels",
            "location": "VTA",
            "subject_id": "3312",
            "strain": "DAT-Cre",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P14W",
        },
    ),
    (
        "J. R. Hartley and M. Osei, University of Michigan. We recorded from the olfactory bulb in awake mice with "
        "silicon probes during odor presentation. Subject: M-OB-2, male, 12 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Hartley, J. R.; Osei, M.",
            "institution": "University of Michigan",
            "experiment_description": "recorded from the olfactory bulb in awake mice with silicon probes during odor "
            "presentation",
            "location": "olfactory bulb",
            "subject_id": "M-OB-2",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P12W",
        },
    ),
    (
        "John P. Morrison, Northwestern University — acute slice recordings from striatal spiny projection neurons "
        "in a Parkinson's mouse model. Slice 4 from mouse JPM-22, male, 6 months.",
        ASKED_FIRST,
        {
            "experimenter": "Morrison, John P.",
            "institution": "Northwestern University",
            "experiment_description": "acute slice recordings from striatal spiny projection neurons in a "
            "Parkinson's mouse model",
            "slice_id": "4",
            "subject_id": "JPM-22",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P6M",
        },
    ),
    (
        "Ana Lucía Gómez, Cedars-Sinai Medical Center in Los Angeles. Single neuron recordings from hippocampus "
        "and amygdala in epilepsy patients with Behnke-Fried electrodes during a recognition memory task. "
        "Patient 112, male, 52 years.",
        ASKED_FIRST,
        {
            "experimenter": "Gómez, Ana Lucía",
            "institution": "Cedars-Sinai Medical Center",
            "experiment_description": "Single neuron recordings from hippocampus and amygdala in epilepsy patients "
            "with Behnke-Fried electrodes during a recognition memory task",
            "location": "hippocampus and amygdala",
            "subject_id": "112",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P52Y",
        },
    ),
    (
        "Prof. Carlos de la Cruz, University of Pittsburgh. Utah arrays in motor cortex of a tetraplegic "
        "participant, BCI cursor control. participant CP2, male, 29 years old.",
        ASKED_FIRST,
        {
            "experimenter": "de la Cruz, Carlos",
            "institution": "University of Pittsburgh",
            "experiment_description": "Utah arrays in motor cortex of a tetraplegic participant, BCI cursor control",
            "location": "motor cortex",
            "subject_id": "CP2",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P29Y",
        },
    ),
    (
        "We are the Reyes lab at NYU, recordings done by Hugo van Dijk. In vivo whole-cell in awake mouse barrel "
        "cortex during whisker stimulation. mouse HVD-3, male, between 8 and 10 weeks.",
        ASKED_FIRST,
        {
            "lab": "Reyes lab",
            "institution": "NYU",
            "experimenter": "van Dijk, Hugo",
            "experiment_description": "In vivo whole-cell in awake mouse barrel cortex during whisker stimulation",
            "location": "barrel cortex",
            "subject_id": "HVD-3",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P8W/P10W",
        },
    ),
    (
        "Fatima Al-Sayed, Weizmann Institute of Science. calcium imaging with a miniscope in the hippocampus of "
        "mice navigating a maze. mouse FA2, female, nine weeks old.",
        ASKED_FIRST,
        {
            "experimenter": "Al-Sayed, Fatima",
            "institution": "Weizmann Institute of Science",
            "experiment_description": "calcium imaging with a miniscope in the hippocampus of mice navigating a maze",
            "location": "hippocampus",
            "subject_id": "FA2",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P9W",
        },
    ),
    (
        "Sarah Kim PhD, Columbia University. Head-fixed mice, two-photon imaging of CA1 place cells in a virtual "
        "corridor. Mouse SK-31, male, born 2023-01-15, recorded 2023-04-20 at 10:00.",
        ASKED_FIRST,
        {
            "experimenter": "Kim, Sarah",
            "institution": "Columbia University",
            "experiment_description": "Head-fixed mice, two-photon imaging of CA1 place cells in a virtual corridor",
            "location": "CA1",
            "subject_id": "SK-31",
            "species": "Mus musculus",
            "sex": "M",
            "date_of_birth": "2023-01-15",
            "session_start_time": "2023-04-20T10:00:00+00:00",
        },
    ),
    (
        "Experimenter is Lukas Brandt, institution DZNE in Bonn. We record hippocampal sharp-wave ripples in aged "
        "mice with Neuropixels (Alzheimer model, APP/PS1). Mouse LB-17, female, 1.5 years old.",
        ASKED_FIRST,
        {
            "experimenter": "Brandt, Lukas",
            "institution": "DZNE",
            "experiment_description": "record hippocampal sharp-wave ripples in aged mice with Neuropixels "
            "(Alzheimer model, APP/PS1)",
            "strain": "APP/PS1",
            "subject_id": "LB-17",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P18M",
        },
    ),
    (
        "Hi there. Jean-Luc Moreau, Institut de la Vision. We record retinal ganglion cells on a multielectrode "
        "array, ex vivo retina from a cynomolgus macaque. Animal Lulu, female, 6 years 3 months.",
        ASKED_FIRST,
        {
            "experimenter": "Moreau, Jean-Luc",
            "institution": "Institut de la Vision",
            "experiment_description": "record retinal ganglion cells on a multielectrode array, ex vivo retina from "
            "a cynomolgus macaque",
            "location": "retina",
            "subject_id": "Lulu",
            "species": "Macaca fascicularis",
            "sex": "F",
            "age": "P6Y3M",
        },
    ),
    (
        "hello i am Na Li from Fudan University, my experment is two photon imaging of mice barrel cortex when "
        "whisker deflect. mouse id 20230815-1, male, 8 week",
        ASKED_FIRST,
        {
            "experimenter": "Li, Na",
            "institution": "Fudan University",
            "experiment_description": "two photon imaging of mice barrel cortex when whisker deflect",
            "location": "barrel cortex",
            "subject_id": "20230815-1",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P8W",
        },
    ),
    (
        "Hello from Oxford! I'm Rebecca Lowe at the University of Oxford. Fiber photometry + optogenetics in the "
        "basolateral amygdala of rats during fear conditioning. Rat RL-4, female Lister Hooded, 10 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Lowe, Rebecca",
            "institution": "University of Oxford",
            "experiment_description": "Fiber photometry + optogenetics in the basolateral amygdala of rats during "
            "fear conditioning",
            "location": "basolateral amygdala",
            "subject_id": "RL-4",
            "species": "Rattus norvegicus",
            "sex": "F",
            "age": "P10W",
            "strain": "Lister Hooded",
        },
    ),
    (
        "Martin Huber, ISTA (Klosterneuburg). Juxtacellular recordings in the MSO of anesthetized Mongolian gerbils. "
        "Gerbil MH_g12, male, P60.",
        ASKED_FIRST,
        {
            "experimenter": "Huber, Martin",
            "institution": "ISTA",
            "experiment_description": "Juxtacellular recordings in the MSO of anesthetized Mongolian gerbils",
            "location": "MSO",
            "subject_id": "MH_g12",
            "species": "Meriones unguiculatus",
            "sex": "M",
            "age": "P60D",
        },
    ),
    (
        "It's Amara Okafor, King's College London. We do in vivo Neuropixels in mouse prefrontal cortex during an "
        "attentional set-shifting task. Mouse AO-2, male, 13 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Okafor, Amara",
            "institution": "King's College London",
            "experiment_description": "in vivo Neuropixels in mouse prefrontal cortex during an attentional "
            "set-shifting task",
            "location": "prefrontal cortex",
            "subject_id": "AO-2",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P13W",
        },
    ),
    (
        "This is Ben Foster at NIMH, we record from the amygdala and OFC of rhesus monkeys with linear probes during "
        "a reward choice task. Monkey: Hank, male, 8 yo.",
        ASKED_FIRST,
        {
            "experimenter": "Foster, Ben",
            "institution": "NIMH",
            "experiment_description": "record from the amygdala and OFC of rhesus monkeys with linear probes during "
            "a reward choice task",
            "location": "amygdala and OFC",
            "subject_id": "Hank",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P8Y",
        },
    ),
    (
        "Sabine Kraus, Caltech — whole-cell patch clamp from Drosophila antennal lobe projection neurons in vivo. "
        "fly: PN-07, female, 2 days old",
        ASKED_FIRST,
        {
            "experimenter": "Kraus, Sabine",
            "institution": "Caltech",
            "experiment_description": "whole-cell patch clamp from Drosophila antennal lobe projection neurons in vivo",
            "location": "antennal lobe",
            "subject_id": "PN-07",
            "species": "Drosophila melanogaster",
            "sex": "F",
            "age": "P2D",
        },
    ),
    (
        "Buenas! Me, Diego Herrera, of the Universidad de Buenos Aires. We record HVC neurons in canaries during "
        "singing with a motorized microdrive. Bird: Rojo, male, 2 years.",
        ASKED_FIRST,
        {
            "experimenter": "Herrera, Diego",
            "institution": "Universidad de Buenos Aires",
            "experiment_description": "record HVC neurons in canaries during singing with a motorized microdrive",
            "location": "HVC",
            "subject_id": "Rojo",
            "species": "Serinus canaria",
            "sex": "M",
            "age": "P2Y",
        },
    ),
    (
        "Noa Levi, Hebrew University of Jerusalem\nWidefield imaging of mouse dorsal cortex during auditory "
        "discrimination\nmouse NL08, female, P75",
        ASKED_FIRST,
        {
            "experimenter": "Levi, Noa",
            "institution": "Hebrew University of Jerusalem",
            "experiment_description": "Widefield imaging of mouse dorsal cortex during auditory discrimination",
            "location": "dorsal cortex",
            "subject_id": "NL08",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P75D",
        },
    ),
    (
        "OIST, Kazuo Yamamoto. Two-photon imaging of cerebellar Purkinje cell dendrites in awake mice. Mouse Y-23, "
        "male, 12-week-old.",
        ASKED_FIRST,
        {
            "experimenter": "Yamamoto, Kazuo",
            "institution": "OIST",
            "experiment_description": "Two-photon imaging of cerebellar Purkinje cell dendrites in awake mice",
            "subject_id": "Y-23",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P12W",
        },
    ),
    (
        "Hi, Sander Peeters from NERF in Leuven. Neuropixels in mouse V1 and LGN simultaneously during natural "
        "movies. Subject SP-M9, male, 4 months.",
        ASKED_FIRST,
        {
            "experimenter": "Peeters, Sander",
            "institution": "NERF",
            "experiment_description": "Neuropixels in mouse V1 and LGN simultaneously during natural movies",
            "location": "V1 and LGN",
            "subject_id": "SP-M9",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P4M",
        },
    ),
    (
        "Kim Tran, Emory University, Atlanta — rat prelimbic cortex single-unit recordings during cocaine "
        "self-administration. Rat KT-45, male Sprague Dawley, 70 days old.",
        ASKED_FIRST,
        {
            "experimenter": "Tran, Kim",
            "institution": "Emory University",
            "experiment_description": "rat prelimbic cortex single-unit recordings during cocaine self-administration",
            "location": "prelimbic cortex",
            "subject_id": "KT-45",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P70D",
            "strain": "Sprague Dawley",
        },
    ),
    (
        "hi im lucas schmidt from University of Freiburg we record from mouse cortex in slices with multi patch up "
        "to 8 cells at once. mouse ls-44 female 5 weeks old",
        ASKED_FIRST,
        {
            "experimenter": "Schmidt, Lucas",
            "institution": "University of Freiburg",
            "experiment_description": "record from mouse cortex in slices with multi patch up to 8 cells at once",
            "location": "cortex",
            "subject_id": "ls-44",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P5W",
        },
    ),
    (
        "Experimenter: Mei Watanabe\nLab: Okamoto lab\nInstitution: Kyoto University\nExperiment: optogenetic "
        "silencing of mouse ALM during licking\nKeywords: motor planning, optogenetics, ALM\n"
        "Subject: MW-8, male, 9 weeks, Mus musculus",
        ASKED_FIRST,
        {
            "experimenter": "Watanabe, Mei",
            "lab": "Okamoto lab",
            "institution": "Kyoto University",
            "experiment_description": "optogenetic silencing of mouse ALM during licking",
            "keywords": "motor planning, optogenetics, ALM",
            "subject_id": "MW-8",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P9W",
        },
    ),
    (
        "Aiden Walsh, University of Washington. experiment: Neuropixels recordings across the mouse visual "
        "hierarchy during passive viewing. This session: 20 min of drifting gratings then 10 min of spontaneous "
        "activity. mouse AW-5, male, 100 days.",
        ASKED_FIRST,
        {
            "experimenter": "Walsh, Aiden",
            "institution": "University of Washington",
            "experiment_description": "Neuropixels recordings across the mouse visual hierarchy during passive viewing",
            "session_description": "20 min of drifting gratings then 10 min of spontaneous activity",
            "subject_id": "AW-5",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P100D",
        },
    ),
    (
        "Rachel Goldberg, Harvard Medical School. Recorded Jan 9 2024, started 11:40 AM EST. Two-photon imaging of "
        "PV interneurons in mouse auditory cortex during a tone detection task. Mouse RG-101, female, 13 wks",
        ASKED_FIRST,
        {
            "experimenter": "Goldberg, Rachel",
            "institution": "Harvard Medical School",
            "session_start_time": "2024-01-09T11:40:00-05:00",
            "experiment_description": "Two-photon imaging of PV interneurons in mouse auditory cortex during a tone "
            "detection task",
            "location": "auditory cortex",
            "subject_id": "RG-101",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P13W",
        },
    ),
    (
        "Kevin Liu at UCSF. Session began 2023-08-22 at 16:05 Pacific time. Human ECoG from speech cortex during "
        "sentence production; participant EC-186, male, 41 years old.",
        ASKED_FIRST,
        {
            "experimenter": "Liu, Kevin",
            "institution": "UCSF",
            "session_start_time": "2023-08-22T16:05:00-07:00",
            "timezone": "America/Los_Angeles",
            "experiment_description": "Human ECoG from speech cortex during sentence production",
            "location": "speech cortex",
            "subject_id": "EC-186",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P41Y",
        },
    ),
    (
        "Hélène Durand, Paris Brain Institute. start time: 2022-11-03 08:45 (Europe/Paris)\nTetrode recordings in "
        "the subthalamic nucleus of rats during a stop-signal task\nrat HD-12, female, Long Evans, 4 months",
        ASKED_FIRST,
        {
            "experimenter": "Durand, Hélène",
            "institution": "Paris Brain Institute",
            "session_start_time": "2022-11-03T08:45:00+01:00",
            "timezone": "Europe/Paris",
            "experiment_description": "Tetrode recordings in the subthalamic nucleus of rats during a stop-signal task",
            "location": "subthalamic nucleus",
            "subject_id": "HD-12",
            "species": "Rattus norvegicus",
            "sex": "F",
            "strain": "Long Evans",
            "age": "P4M",
        },
    ),
    (
        "Mikko Virtanen, University of Helsinki. Session start 2021-09-15T10:20 +03:00. In vivo recordings of early "
        "network oscillations in neonatal rat pups with silicon probes in somatosensory cortex. Pup ID np-3, sex "
        "not determined, P5.",
        ASKED_FIRST,
        {
            "experimenter": "Virtanen, Mikko",
            "institution": "University of Helsinki",
            "session_start_time": "2021-09-15T10:20:00+03:00",
            "experiment_description": "In vivo recordings of early network oscillations in neonatal rat pups with "
            "silicon probes in somatosensory cortex",
            "location": "somatosensory cortex",
            "subject_id": "np-3",
            "species": "Rattus norvegicus",
            "sex": "U",
            "age": "P5D",
        },
    ),
    (
        "Dana Brooks, University of Chicago. Recorded 12 March 2024 at 3:30 pm Chicago time. Calcium imaging of "
        "layer 2/3 in mouse somatosensory cortex during texture discrimination. mouse DB7, male, 10 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Brooks, Dana",
            "institution": "University of Chicago",
            "session_start_time": "2024-03-12T15:30:00-05:00",
            "timezone": "America/Chicago",
            "experiment_description": "Calcium imaging of layer 2/3 in mouse somatosensory cortex during texture "
            "discrimination",
            "location": "layer 2/3 in somatosensory cortex",
            "subject_id": "DB7",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P10W",
        },
    ),
    (
        "Felix Hartmann, Leibniz Institute for Neurobiology in Magdeburg. the session was on 28 October 2023 "
        "starting 09:00 Berlin time. Two-photon imaging in auditory cortex of Mongolian gerbils during a "
        "categorization task. gerbil FH-g3, male, 5 months",
        ASKED_FIRST,
        {
            "experimenter": "Hartmann, Felix",
            "institution": "Leibniz Institute for Neurobiology",
            "session_start_time": "2023-10-28T09:00:00+02:00",
            "timezone": "Europe/Berlin",
            "experiment_description": "Two-photon imaging in auditory cortex of Mongolian gerbils during a "
            "categorization task",
            "location": "auditory cortex",
            "subject_id": "FH-g3",
            "species": "Meriones unguiculatus",
            "sex": "M",
            "age": "P5M",
        },
    ),
    (
        "Jack Thompson, University of Sydney. Recording 2 July 2022 at 11.15 Sydney time. Whole-cell recordings "
        "from dopamine neurons in rat midbrain slices. rat JT-9, male, P28.",
        ASKED_FIRST,
        {
            "experimenter": "Thompson, Jack",
            "institution": "University of Sydney",
            "session_start_time": "2022-07-02T11:15:00+10:00",
            "timezone": "Australia/Sydney",
            "experiment_description": "Whole-cell recordings from dopamine neurons in rat midbrain slices",
            "location": "midbrain",
            "subject_id": "JT-9",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P28D",
        },
    ),
    (
        "Hello sir/madam, I am Ananya Iyer, PhD scholar at TIFR. The session was done on 3rd Feb 2025, 10:30 am "
        "India time. Experiment is extracellular recordings from the optic lobe of Drosophila during looming "
        "stimuli. Fly ID AI-F2, female, 4 days old.",
        ASKED_FIRST,
        {
            "experimenter": "Iyer, Ananya",
            "institution": "TIFR",
            "session_start_time": "2025-02-03T10:30:00+05:30",
            "timezone": "Asia/Kolkata",
            "experiment_description": "extracellular recordings from the optic lobe of Drosophila during looming "
            "stimuli",
            "location": "optic lobe",
            "subject_id": "AI-F2",
            "species": "Drosophila melanogaster",
            "sex": "F",
            "age": "P4D",
        },
    ),
    (
        "Isabel Clarke at the Francis Crick Institute. Started 20 June 2024 at 15:45 London time. Neuropixels in "
        "mouse thalamus during sensory-guided navigation. Mouse IC-14, female, 11 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Clarke, Isabel",
            "institution": "Francis Crick Institute",
            "session_start_time": "2024-06-20T15:45:00+01:00",
            "timezone": "Europe/London",
            "experiment_description": "Neuropixels in mouse thalamus during sensory-guided navigation",
            "location": "thalamus",
            "subject_id": "IC-14",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P11W",
        },
    ),
    (
        "Hao Chen, Tsinghua University. Recorded 2024-11-08 at 20:10 Beijing time. Neuropixels in mouse VTA and "
        "NAc during social reward. mouse HC-33, male, 9 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Chen, Hao",
            "institution": "Tsinghua University",
            "session_start_time": "2024-11-08T20:10:00+08:00",
            "timezone": "Asia/Shanghai",
            "experiment_description": "Neuropixels in mouse VTA and NAc during social reward",
            "location": "VTA and NAc",
            "subject_id": "HC-33",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P9W",
        },
    ),
    (
        "Haruka Mori / Nagoya University / started 2023-05-17 13:00 JST / whole-cell recordings from cerebellar "
        "granule cells in acute mouse slices / mouse HM-2, female, P25",
        ASKED_FIRST,
        {
            "experimenter": "Mori, Haruka",
            "institution": "Nagoya University",
            "session_start_time": "2023-05-17T13:00:00+09:00",
            "experiment_description": "whole-cell recordings from cerebellar granule cells in acute mouse slices",
            "subject_id": "HM-2",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P25D",
        },
    ),
    (
        "Rafael Souza, Universidade Federal do Rio Grande do Norte. Session started 2019-10-22 at 14:00 Brasília "
        "time. Tetrode recordings in rat hippocampus and prefrontal cortex during sleep. rat RS-1, male, 3 months",
        ASKED_FIRST,
        {
            "experimenter": "Souza, Rafael",
            "institution": "Universidade Federal do Rio Grande do Norte",
            "session_start_time": "2019-10-22T14:00:00-03:00",
            "timezone": "America/Sao_Paulo",
            "experiment_description": "Tetrode recordings in rat hippocampus and prefrontal cortex during sleep",
            "location": "hippocampus and prefrontal cortex",
            "subject_id": "RS-1",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P3M",
        },
    ),
    (
        "Takeshi Ono from Keio University. we recorded 2024-01-25, 16:20 Tokyo time. Utah array in premotor cortex "
        "of a marmoset during reaching. marmoset Kuro, male, 3 years",
        ASKED_FIRST,
        {
            "experimenter": "Ono, Takeshi",
            "institution": "Keio University",
            "session_start_time": "2024-01-25T16:20:00+09:00",
            "timezone": "Asia/Tokyo",
            "experiment_description": "Utah array in premotor cortex of a marmoset during reaching",
            "location": "premotor cortex",
            "subject_id": "Kuro",
            "species": "Callithrix jacchus",
            "sex": "M",
            "age": "P3Y",
        },
    ),
    (
        "Experimenter: Smith, Jane\nInstitution: Johns Hopkins University\nSession: June 3, 2022 at 10:05 Eastern\n"
        "What we do: juxtacellular recordings in the cerebellar nuclei of awake mice during eyeblink conditioning\n"
        "Mouse JS-40, female, 15 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Smith, Jane",
            "institution": "Johns Hopkins University",
            "session_start_time": "2022-06-03T10:05:00-04:00",
            "timezone": "America/New_York",
            "experiment_description": "juxtacellular recordings in the cerebellar nuclei of awake mice during eyeblink "
            "conditioning",
            "location": "cerebellar nuclei",
            "subject_id": "JS-40",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P15W",
        },
    ),
    (
        "Bonjour! Élodie Roux, Institut de Neurosciences de la Timone in Marseille. Recording 26/03/2023 at 11:00 "
        "Paris time (the day the clocks changed, sorry if it's confusing). We record in macaque FEF with linear "
        "probes during saccades. Monkey Figaro, male rhesus, 7 ans (7 years).",
        ASKED_FIRST,
        {
            "experimenter": "Roux, Élodie",
            "institution": "Institut de Neurosciences de la Timone",
            "session_start_time": "2023-03-26T11:00:00+02:00",
            "timezone": "Europe/Paris",
            "experiment_description": "record in macaque FEF with linear probes during saccades",
            "location": "FEF",
            "subject_id": "Figaro",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P7Y",
        },
    ),
    (
        "Reto Keller, University of Zurich. Session was 31.03.2024 from 10:00 Zurich time. We image layer 5 "
        "dendrites in mouse somatosensory cortex with two-photon during whisker stimulation. Mouse RK-6, "
        "female, 16 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Keller, Reto",
            "institution": "University of Zurich",
            "session_start_time": "2024-03-31T10:00:00+02:00",
            "timezone": "Europe/Zurich",
            "experiment_description": "image layer 5 dendrites in mouse somatosensory cortex with two-photon during "
            "whisker stimulation",
            "location": "somatosensory cortex",
            "subject_id": "RK-6",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P16W",
        },
    ),
    (
        "Marcus Bell, Yale. Recording started November 7 2021 at 9:30 am New York time. EEG and LFP in rats after "
        "traumatic brain injury. Rat MB-22, male, 12 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Bell, Marcus",
            "institution": "Yale",
            "session_start_time": "2021-11-07T09:30:00-05:00",
            "timezone": "America/New_York",
            "experiment_description": "EEG and LFP in rats after traumatic brain injury",
            "subject_id": "MB-22",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P12W",
        },
    ),
    (
        "Hola, soy Lucía Navarro from the Instituto de Neurociencias in Alicante. We did the recording the 14th "
        "February 2020 at 17:45 Madrid time. Is patch clamp of spinal cord motoneurons in neonatal mice slices. "
        "Mouse LN-3, female, P8.",
        ASKED_FIRST,
        {
            "experimenter": "Navarro, Lucía",
            "institution": "Instituto de Neurociencias",
            "session_start_time": "2020-02-14T17:45:00+01:00",
            "timezone": "Europe/Madrid",
            "experiment_description": "patch clamp of spinal cord motoneurons in neonatal mice slices",
            "location": "spinal cord",
            "subject_id": "LN-3",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P8D",
        },
    ),
    (
        "Cody Reeves, University of Colorado. Started 5 Sep 2023 at 8:00, Denver time. Neuropixels in mouse "
        "dorsal striatum during a lever-pressing task. Mouse CR-11, male, 20 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Reeves, Cody",
            "institution": "University of Colorado",
            "session_start_time": "2023-09-05T08:00:00-06:00",
            "timezone": "America/Denver",
            "experiment_description": "Neuropixels in mouse dorsal striatum during a lever-pressing task",
            "location": "dorsal striatum",
            "subject_id": "CR-11",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P20W",
        },
    ),
    (
        "Yael Mizrahi from the Weizmann. Wireless tetrode recordings in dorsal CA1 of Egyptian fruit bats flying in "
        "a tunnel. Bat 2336, male, adult (~3 years).",
        ASKED_FIRST,
        {
            "experimenter": "Mizrahi, Yael",
            "institution": "Weizmann",
            "experiment_description": "Wireless tetrode recordings in dorsal CA1 of Egyptian fruit bats flying in a "
            "tunnel",
            "location": "dorsal CA1",
            "subject_id": "2336",
            "species": "Rousettus aegyptiacus",
            "sex": "M",
            "age": "P3Y",
        },
    ),
    (
        "Thomas Becker, RWTH Aachen University. Recording in the inferior colliculus of barn owls with tungsten "
        "electrodes during ITD stimuli. Owl: Hedwig, female, 3 years old.",
        ASKED_FIRST,
        {
            "experimenter": "Becker, Thomas",
            "institution": "RWTH Aachen University",
            "experiment_description": "Recording in the inferior colliculus of barn owls with tungsten electrodes "
            "during ITD stimuli",
            "location": "inferior colliculus",
            "subject_id": "Hedwig",
            "species": "Tyto alba",
            "sex": "F",
            "age": "P3Y",
        },
    ),
    (
        "Lin Qiu, Brown University. whole-cell recordings from optic tectum neurons in Xenopus tadpoles, stage 48. "
        "tadpole T5, sex unknown",
        ASKED_FIRST,
        {
            "experimenter": "Qiu, Lin",
            "institution": "Brown University",
            "experiment_description": "whole-cell recordings from optic tectum neurons in Xenopus tadpoles, stage 48",
            "location": "optic tectum",
            "subject_id": "T5",
            "species": "Xenopus laevis",
            "sex": "U",
        },
    ),
    (
        "Jonas Wolf at the Max Planck Institute for Biological Intelligence, Martinsried. Two-photon imaging in "
        "visual cortex of tree shrews. Animal TS-3, male, 1 year.",
        ASKED_FIRST,
        {
            "experimenter": "Wolf, Jonas",
            "institution": "Max Planck Institute for Biological Intelligence",
            "experiment_description": "Two-photon imaging in visual cortex of tree shrews",
            "location": "visual cortex",
            "subject_id": "TS-3",
            "species": "Tupaia belangeri",
            "sex": "M",
            "age": "P1Y",
        },
    ),
    (
        "we're at the University of Nottingham, recordings by Alice Ward. Auditory nerve fibre recordings in "
        "anaesthetised guinea pigs. animal GP-14, male, about 400 g",
        ASKED_FIRST,
        {
            "institution": "University of Nottingham",
            "experimenter": "Ward, Alice",
            "experiment_description": "Auditory nerve fibre recordings in anaesthetised guinea pigs",
            "location": "Auditory nerve",
            "subject_id": "GP-14",
            "species": "Cavia porcellus",
            "sex": "M",
        },
    ),
    (
        "Ryan Patel, University of Minnesota. Eyeblink conditioning in rabbits with tetrode recordings from "
        "cerebellar cortex. Rabbit Thumper, female, 3 months old",
        ASKED_FIRST,
        {
            "experimenter": "Patel, Ryan",
            "institution": "University of Minnesota",
            "experiment_description": "Eyeblink conditioning in rabbits with tetrode recordings from cerebellar cortex",
            "location": "cerebellar cortex",
            "subject_id": "Thumper",
            "species": "Oryctolagus cuniculus",
            "sex": "F",
            "age": "P3M",
        },
    ),
    (
        "Emma Lindqvist at Cornell University. Miniscope imaging in nucleus accumbens of prairie voles during pair "
        "bonding. Vole PV-21, female, 90 days.",
        ASKED_FIRST,
        {
            "experimenter": "Lindqvist, Emma",
            "institution": "Cornell University",
            "experiment_description": "Miniscope imaging in nucleus accumbens of prairie voles during pair bonding",
            "location": "nucleus accumbens",
            "subject_id": "PV-21",
            "species": "Microtus ochrogaster",
            "sex": "F",
            "age": "P90D",
        },
    ),
    (
        "Dr. Ravi Shankar, neurology, NIMHANS, Bengaluru. Intra-operative LFP recordings from the subthalamic "
        "nucleus of a Parkinson's patient during DBS surgery. Patient ID PD-09, male, 63 years.",
        ASKED_FIRST,
        {
            "experimenter": "Shankar, Ravi",
            "institution": "NIMHANS",
            "experiment_description": "Intra-operative LFP recordings from the subthalamic nucleus of a Parkinson's "
            "patient during DBS surgery",
            "location": "subthalamic nucleus",
            "subject_id": "PD-09",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P63Y",
        },
    ),
    (
        "Zoe Adams, Allen Institute. Subject info I need to look up, will send later.",
        ASKED_FIRST,
        {"experimenter": "Adams, Zoe", "institution": "Allen Institute"},
    ),
    (
        "I'm Marco Ferri, Italian Institute of Technology in Genoa. The experiment... honestly it's complicated, let "
        "me ask my PI first. Mouse MF-1, male.",
        ASKED_FIRST,
        {
            "experimenter": "Ferri, Marco",
            "institution": "Italian Institute of Technology",
            "subject_id": "MF-1",
            "species": "Mus musculus",
            "sex": "M",
        },
    ),
    (
        "ok so. experimenter Kofi Mensah (that's me, hi), institution Vanderbilt University (don't ask why the "
        "cluster is so slow today lol). We image astrocyte calcium in mouse hippocampal slices. Slice S7 from "
        "mouse KM-3, female, P30.",
        ASKED_FIRST,
        {
            "experimenter": "Mensah, Kofi",
            "institution": "Vanderbilt University",
            "experiment_description": "image astrocyte calcium in mouse hippocampal slices",
            "slice_id": "S7",
            "subject_id": "KM-3",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P30D",
        },
    ),
    (
        "Before I answer anything: is this going to be public on DANDI straight away? My PI wants to publish first.",
        ASKED_FIRST,
        {},
    ),
    (
        "can I do this later? I'm at the rig right now and don't have the notes",
        ASKED_FIRST,
        {},
    ),
    (
        "Hi,\n\nThe recordings were performed by Ludwig von Hohenberg and Clara Stein at the University of Vienna. "
        "We performed dual whole-cell recordings from connected L5 pyramidal cells in acute slices of rat "
        "prefrontal cortex.\n\nSlice 3, rat LvH-07 (Wistar, male, P24).\n\nBest regards,\nLudwig",
        ASKED_FIRST,
        {
            "experimenter": "von Hohenberg, Ludwig; Stein, Clara",
            "institution": "University of Vienna",
            "experiment_description": "dual whole-cell recordings from connected L5 pyramidal cells in acute slices of "
            "rat prefrontal cortex",
            "location": "prefrontal cortex",
            "slice_id": "3",
            "subject_id": "LvH-07",
            "species": "Rattus norvegicus",
            "strain": "Wistar",
            "sex": "M",
            "age": "P24D",
        },
    ),
    (
        "Sanjay Gupta here from Champalimaud Foundation, Lisbon. we do two-photon imaging of the zebrafish "
        "habenula during a learned avoidance task. fish HB-02, 7 days old, sex can't be told yet",
        ASKED_FIRST,
        {
            "experimenter": "Gupta, Sanjay",
            "institution": "Champalimaud Foundation",
            "experiment_description": "two-photon imaging of the zebrafish habenula during a learned avoidance task",
            "location": "habenula",
            "subject_id": "HB-02",
            "species": "Danio rerio",
            "sex": "U",
            "age": "P7D",
        },
    ),
    (
        "Recorded by me (Hyun-woo Choi) at Seoul National University. Silicon probe in mouse LHb during "
        "aversive conditioning. mouse: HC-M7 / male / 11 weeks / C57BL/6N",
        ASKED_FIRST,
        {
            "experimenter": "Choi, Hyun-woo",
            "institution": "Seoul National University",
            "experiment_description": "Silicon probe in mouse LHb during aversive conditioning",
            "location": "LHb",
            "subject_id": "HC-M7",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P11W",
            "strain": "C57BL/6N",
        },
    ),
    (
        "Prof. Annelies Janssens (PI) and Bram Claes did the recordings together, KU Leuven. fMRI-guided "
        "electrophysiology in macaque IT cortex, face patches. monkey: Dexter, rhesus, male, 6 years",
        ASKED_FIRST,
        {
            "experimenter": "Janssens, Annelies; Claes, Bram",
            "institution": "KU Leuven",
            "experiment_description": "fMRI-guided electrophysiology in macaque IT cortex, face patches",
            "location": "IT cortex",
            "subject_id": "Dexter",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P6Y",
        },
    ),
    (
        "experimenter Agnieszka Wójcik, institution Nencki Institute of Experimental Biology in Warsaw, "
        "experiment: LFP from amygdala in rats exposed to a stressed cagemate, rat AW1, male, 8 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Wójcik, Agnieszka",
            "institution": "Nencki Institute of Experimental Biology",
            "experiment_description": "LFP from amygdala in rats exposed to a stressed cagemate",
            "location": "amygdala",
            "subject_id": "AW1",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P8W",
        },
    ),
    (
        "Hi!! I'm Bianca Costa, a master student at the University of Lisbon 😊 We "
        "record with Neuropixels in the mouse orbitofrontal cortex while the animals do a foraging task. The "
        "mouse is BC-12, a female, 12 weeks",
        ASKED_FIRST,
        {
            "experimenter": "Costa, Bianca",
            "institution": "University of Lisbon",
            "experiment_description": "record with Neuropixels in the mouse orbitofrontal cortex while the animals do "
            "a foraging task",
            "location": "orbitofrontal cortex",
            "subject_id": "BC-12",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P12W",
        },
    ),
    (
        "Name Mohammed Al-Farsi. Uni: Khalifa University. Research: EEG in healthy human volunteers during a "
        "working memory task. Subject S03 male 24y",
        ASKED_FIRST,
        {
            "experimenter": "Al-Farsi, Mohammed",
            "institution": "Khalifa University",
            "experiment_description": "EEG in healthy human volunteers during a working memory task",
            "subject_id": "S03",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P24Y",
        },
    ),
    (
        "This is Dr. Gabriela Silva, epileptologist at UCLA. The recordings are microwire single units from "
        "medial temporal lobe of a patient with drug-resistant epilepsy watching movie clips. Patient 431, female, "
        "age 38.",
        ASKED_FIRST,
        {
            "experimenter": "Silva, Gabriela",
            "institution": "UCLA",
            "experiment_description": "microwire single units from medial temporal lobe of a patient with "
            "drug-resistant epilepsy watching movie clips",
            "location": "medial temporal lobe",
            "subject_id": "431",
            "species": "Homo sapiens",
            "sex": "F",
            "age": "P38Y",
        },
    ),
    (
        "Hey! Josh Miller from the Rinberg lab, NYU Langone. Two-photon of olfactory bulb glomeruli during "
        "odor sniffing, mouse JM-2, male, P90",
        ASKED_FIRST,
        {
            "experimenter": "Miller, Josh",
            "lab": "Rinberg lab",
            "institution": "NYU Langone",
            "experiment_description": "Two-photon of olfactory bulb glomeruli during odor sniffing",
            "location": "olfactory bulb",
            "subject_id": "JM-2",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P90D",
        },
    ),
    (
        "Recording: Neuropixels 2.0, chronic, in mouse hippocampus + entorhinal cortex over weeks\n"
        "Who: Ines Schulz\nWhere: University of Göttingen\nAnimal: mouse IS-15, female, 4 mo, C57BL/6J",
        ASKED_FIRST,
        {
            "experiment_description": "Neuropixels 2.0, chronic, in mouse hippocampus + entorhinal cortex over weeks",
            "location": "hippocampus + entorhinal cortex",
            "experimenter": "Schulz, Ines",
            "institution": "University of Göttingen",
            "subject_id": "IS-15",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P4M",
            "strain": "C57BL/6J",
        },
    ),
    (
        "Yes hello. I am Ayşe Demir, postdoc in Koç University at Istanbul. We are doing patch clamp on cultured "
        "hippocampal neurons from rat embryos. Culture from rat RD-5, sex we did not check, the culture was DIV 14",
        ASKED_FIRST,
        {
            "experimenter": "Demir, Ayşe",
            "institution": "Koç University",
            "experiment_description": "patch clamp on cultured hippocampal neurons from rat embryos",
            "subject_id": "RD-5",
            "species": "Rattus norvegicus",
            "sex": "U",
        },
    ),
    (
        "me and my labmate: Nikhil Rao, Shreya Menon. we're at IIT Bombay (bioscience dept). calcium imaging in "
        "mouse V1 during locomotion. mouse NR-09 male 3 months",
        ASKED_FIRST,
        {
            "experimenter": "Rao, Nikhil; Menon, Shreya",
            "institution": "IIT Bombay",
            "experiment_description": "calcium imaging in mouse V1 during locomotion",
            "location": "V1",
            "subject_id": "NR-09",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P3M",
        },
    ),
    (
        "Hi I'm Lena from the Schmitz lab at the Max Planck Institute of Psychiatry in Munich, we do in vivo "
        "patch in mouse lateral habenula, mouse LS_112 was a 10 wk old male",
        ASKED_FIRST,
        {
            "experimenter": "Lena",
            "lab": "Schmitz lab",
            "institution": "Max Planck Institute of Psychiatry",
            "experiment_description": "in vivo patch in mouse lateral habenula",
            "location": "lateral habenula",
            "subject_id": "LS_112",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P10W",
        },
    ),
    (
        "Investigator: Dr. Kwame Asante\nAffiliation: Noguchi Memorial Institute for Medical Research, Accra\n"
        "Study: EEG in children with cerebral malaria\nParticipant: CM-014, boy, 6 years",
        ASKED_FIRST,
        {
            "experimenter": "Asante, Kwame",
            "institution": "Noguchi Memorial Institute for Medical Research",
            "experiment_description": "EEG in children with cerebral malaria",
            "subject_id": "CM-014",
            "species": "Homo sapiens",
            "sex": "M",
            "age": "P6Y",
        },
    ),
    (
        "Mustafa Kaya (PhD student) & Prof. Dr. Ulrike Brandt, Ruhr University Bochum. Neuropixels in pigeon "
        "nidopallium during a working memory task. Pigeon 812, male, ~2 years",
        ASKED_FIRST,
        {
            "experimenter": "Kaya, Mustafa; Brandt, Ulrike",
            "institution": "Ruhr University Bochum",
            "experiment_description": "Neuropixels in pigeon nidopallium during a working memory task",
            "location": "nidopallium",
            "subject_id": "812",
            "species": "Columba livia",
            "sex": "M",
            "age": "P2Y",
        },
    ),
    (
        "it's me Amelia Wright again (Oregon Health & Science University) - same experiment as last time, widefield "
        "imaging in marmoset visual cortex during free viewing, but this one is a new animal: marmoset Pip, "
        "male, 2.5 years",
        ASKED_FIRST,
        {
            "experimenter": "Wright, Amelia",
            "institution": "Oregon Health & Science University",
            "experiment_description": "widefield imaging in marmoset visual cortex during free viewing",
            "location": "visual cortex",
            "subject_id": "Pip",
            "species": "Callithrix jacchus",
            "sex": "M",
            "age": "P30M",
        },
    ),
    (
        "Greetings, I am Vikram Singh. I am working as Research Associate at National Brain Research Centre, "
        "Manesar. Experiment: tetrode recordings in rat mPFC in a fear extinction paradigm. Animal particulars: "
        "rat no. 34, male Wistar, 10 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "Singh, Vikram",
            "institution": "National Brain Research Centre",
            "experiment_description": "tetrode recordings in rat mPFC in a fear extinction paradigm",
            "location": "mPFC",
            "subject_id": "34",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P10W",
            "strain": "Wistar",
        },
    ),
    (
        "Chiara Ricci & Matteo Greco, Italian Institute of Technology (Rovereto). We record ECoG in mice under "
        "light anesthesia. mouse CR-2, female, 2 months. done 😅",
        ASKED_FIRST,
        {
            "experimenter": "Ricci, Chiara; Greco, Matteo",
            "institution": "Italian Institute of Technology",
            "experiment_description": "record ECoG in mice under light anesthesia",
            "subject_id": "CR-2",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P2M",
        },
    ),
    (
        "We're the Ahrens lab at Janelia, I'm the tech Paul Garcia. The data is whole-brain light-sheet imaging of "
        "larval zebrafish during motor adaptation. Fish 1, 6 days old, sex not determined.",
        ASKED_FIRST,
        {
            "lab": "Ahrens lab",
            "institution": "Janelia",
            "experimenter": "Garcia, Paul",
            "experiment_description": "whole-brain light-sheet imaging of larval zebrafish during motor adaptation",
            "subject_id": "1",
            "species": "Danio rerio",
            "sex": "U",
            "age": "P6D",
        },
    ),
    (
        "Hi - the recordings were done by my postdoc Dr. Irina Volkova, I'm just uploading them (I'm the lab "
        "manager). We're at the Karolinska Institutet in Stockholm. Spinal cord recordings in adult zebrafish "
        "during swimming, fish ZF-A4, male, 1 year",
        ASKED_FIRST,
        {
            "experimenter": "Volkova, Irina",
            "institution": "Karolinska Institutet",
            "experiment_description": "Spinal cord recordings in adult zebrafish during swimming",
            "location": "Spinal cord",
            "subject_id": "ZF-A4",
            "species": "Danio rerio",
            "sex": "M",
            "age": "P1Y",
        },
    ),
    (
        "I'm a PI, Maya Shapiro, Tel Aviv University. The experiment is what the title says lol, \"theta "
        'sequences in CA1 of rats". rat MS3, M, 6 mo',
        ASKED_FIRST,
        {
            "experimenter": "Shapiro, Maya",
            "institution": "Tel Aviv University",
            "experiment_description": "theta sequences in CA1 of rats",
            "location": "CA1",
            "subject_id": "MS3",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P6M",
        },
    ),
    (
        "Jan de Boer, University of Amsterdam. Session started 2023-07-11 10:00 +02:00. We record in mouse "
        "primary visual cortex with Neuropixels during a figure detection task. Mouse JdB-4, female, 14 weeks.",
        ASKED_FIRST,
        {
            "experimenter": "de Boer, Jan",
            "institution": "University of Amsterdam",
            "session_start_time": "2023-07-11T10:00:00+02:00",
            "experiment_description": "record in mouse primary visual cortex with Neuropixels during a figure "
            "detection task",
            "location": "primary visual cortex",
            "subject_id": "JdB-4",
            "species": "Mus musculus",
            "sex": "F",
            "age": "P14W",
        },
    ),
    (
        "Hi. experimenter: Linh Tran. institution: University of Melbourne. The experiment: Neuropixels in the "
        "ferret auditory cortex during sound localisation. subject: ferret Mango, female, 18 months. Oh and the "
        "rig clock is 2 min fast, fyi.",
        ASKED_FIRST,
        {
            "experimenter": "Tran, Linh",
            "institution": "University of Melbourne",
            "experiment_description": "Neuropixels in the ferret auditory cortex during sound localisation",
            "location": "auditory cortex",
            "subject_id": "Mango",
            "species": "Mustela furo",
            "sex": "F",
            "age": "P18M",
        },
    ),
    (
        "From the Institute of Neuroscience, Shanghai: experimenter Xiaoming Wu. We recorded macaque prefrontal "
        "cortex neurons during sequence working memory with Utah arrays. Macaque M2, male, 5 years old, "
        "Macaca mulatta",
        ASKED_FIRST,
        {
            "institution": "Institute of Neuroscience",
            "experimenter": "Wu, Xiaoming",
            "experiment_description": "recorded macaque prefrontal cortex neurons during sequence working memory with "
            "Utah arrays",
            "location": "prefrontal cortex",
            "subject_id": "M2",
            "species": "Macaca mulatta",
            "sex": "M",
            "age": "P5Y",
        },
    ),
    (
        "Raúl Jiménez, Universidad Autónoma de Madrid.\n- slice electrophysiology, human temporal cortex "
        "resected in epilepsy surgery\n- patient HT-21\n- woman, 41",
        ASKED_FIRST,
        {
            "experimenter": "Jiménez, Raúl",
            "institution": "Universidad Autónoma de Madrid",
            "experiment_description": "slice electrophysiology, human temporal cortex resected in epilepsy surgery",
            "location": "temporal cortex",
            "subject_id": "HT-21",
            "species": "Homo sapiens",
            "sex": "F",
            "age": "P41Y",
        },
    ),
    (
        "peter van der linden, university of groningen? no wait we moved, it's UMC Utrecht now. EEG in rats after "
        "stroke. rat pvdl-2, male, 14 weeks",
        ASKED_FIRST,
        {
            "experimenter": "van der Linden, Peter",
            "institution": "UMC Utrecht",
            "experiment_description": "EEG in rats after stroke",
            "subject_id": "pvdl-2",
            "species": "Rattus norvegicus",
            "sex": "M",
            "age": "P14W",
        },
    ),
    (
        "Tamar Friedman, Technion. We record from cultured rat cortical networks on MEAs to study bursting. "
        "The cultures come from pooled newborn pups, so there's no single animal ID, sorry.",
        ASKED_FIRST,
        {
            "experimenter": "Friedman, Tamar",
            "institution": "Technion",
            "experiment_description": "record from cultured rat cortical networks on MEAs to study bursting",
            "species": "Rattus norvegicus",
        },
    ),
    (
        "Dr. Sophie Laurent and Dr. Antoine Girard (Inserm U1215, Bordeaux). Two-photon imaging of dentate gyrus "
        "granule cells in mice during contextual fear. mouse SL-01, male, P70",
        ASKED_FIRST,
        {
            "experimenter": "Laurent, Sophie; Girard, Antoine",
            "institution": "Inserm U1215",
            "experiment_description": "Two-photon imaging of dentate gyrus granule cells in mice during contextual fear",
            "location": "dentate gyrus",
            "subject_id": "SL-01",
            "species": "Mus musculus",
            "sex": "M",
            "age": "P70D",
        },
    ),
    # --- answers to a follow-up for the critical fields ------------------------------------------
    (
        "Oh sorry. I'm Tobias Lang, Max Planck Institute for Brain Research in Frankfurt, and the experiment is "
        "dual patch clamp of synaptically connected pyramidal cells",
        CRITICAL,
        {
            "experimenter": "Lang, Tobias",
            "institution": "Max Planck Institute for Brain Research",
            "experiment_description": "dual patch clamp of synaptically connected pyramidal cells",
        },
    ),
    (
        "experimenter: Hiroshi Kato; institution: Tohoku University; experiment: chronic ECoG in freely moving "
        "animals during sleep deprivation",
        CRITICAL,
        {
            "experimenter": "Kato, Hiroshi",
            "institution": "Tohoku University",
            "experiment_description": "chronic ECoG in freely moving animals during sleep deprivation",
        },
    ),
    (
        "Laura Schneider, University of Tübingen, we look at how visual motion is represented in area MT",
        CRITICAL,
        {
            "experimenter": "Schneider, Laura",
            "institution": "University of Tübingen",
            "experiment_description": "how visual motion is represented in area MT",
            "location": "area MT",
        },
    ),
    (
        "the person who recorded was Nikos Papadopoulos. institution is BRFAA in Athens. Experiment: in vivo "
        "two-photon imaging of somatostatin interneurons during locomotion.",
        CRITICAL,
        {
            "experimenter": "Papadopoulos, Nikos",
            "institution": "BRFAA",
            "experiment_description": "in vivo two-photon imaging of somatostatin interneurons during locomotion",
        },
    ),
    (
        "alex turner / university of bristol / head-fixed licking task with neuropixels in cerebellum",
        CRITICAL,
        {
            "experimenter": "Turner, Alex",
            "institution": "university of bristol",
            "experiment_description": "head-fixed licking task with neuropixels in cerebellum",
            "location": "cerebellum",
        },
    ),
    (
        "Experimenters were Paula Ortiz, Ming Li and Samuel Okoro. We're all at the University of Cape Town. "
        "Experiment: auditory steady-state responses recorded with skull screws in awake animals.",
        CRITICAL,
        {
            "experimenter": "Ortiz, Paula; Li, Ming; Okoro, Samuel",
            "institution": "University of Cape Town",
            "experiment_description": "auditory steady-state responses recorded with skull screws in awake animals",
        },
    ),
    (
        "Recordings by Sanne de Jong and Willem van den Broek, Erasmus MC Rotterdam. It's Purkinje cell recordings "
        "during vestibular stimulation.",
        CRITICAL,
        {
            "experimenter": "de Jong, Sanne; van den Broek, Willem",
            "institution": "Erasmus MC",
            "experiment_description": "Purkinje cell recordings during vestibular stimulation",
        },
    ),
    (
        "Experimenters: Prof. Dr. Heinrich Vogel, Petra Lange\nInstitution: Heidelberg University\nExperiment: "
        "in vivo juxtacellular labelling of identified neurons in the medial septum",
        CRITICAL,
        {
            "experimenter": "Vogel, Heinrich; Lange, Petra",
            "institution": "Heidelberg University",
            "experiment_description": "in vivo juxtacellular labelling of identified neurons in the medial septum",
            "location": "medial septum",
        },
    ),
    (
        "We're at the MRC Laboratory of Molecular Biology in Cambridge. I'm Oliver Grant. It's two-photon imaging "
        "of spontaneous retinal waves during development.",
        CRITICAL,
        {
            "experimenter": "Grant, Oliver",
            "institution": "MRC Laboratory of Molecular Biology",
            "experiment_description": "two-photon imaging of spontaneous retinal waves during development",
        },
    ),
    (
        "sorry I skipped that. Me: Sun-hee Lim, Korea Brain Research Institute in Daegu. experiment = fiber "
        "photometry of serotonin release in BNST during stress",
        CRITICAL,
        {
            "experimenter": "Lim, Sun-hee",
            "institution": "Korea Brain Research Institute",
            "experiment_description": "fiber photometry of serotonin release in BNST during stress",
            "location": "BNST",
        },
    ),
    (
        "Again?? I told you already. Francesca Moretti, University of Milan, patch clamp of dopaminergic neurons.",
        CRITICAL,
        {
            "experimenter": "Moretti, Francesca",
            "institution": "University of Milan",
            "experiment_description": "patch clamp of dopaminergic neurons",
        },
    ),
    (
        "the experimenter is Ahmed Nasser, he's at Cairo University, the experiment is about how anesthesia "
        "changes cortical up and down states",
        CRITICAL,
        {
            "experimenter": "Nasser, Ahmed",
            "institution": "Cairo University",
            "experiment_description": "how anesthesia changes cortical up and down states",
        },
    ),
    (
        "Who: Kateřina Horáková\nWhere: CEITEC in Brno\nWhat: optogenetic dissection of thalamocortical "
        "inputs to auditory cortex in slices",
        CRITICAL,
        {
            "experimenter": "Horáková, Kateřina",
            "institution": "CEITEC",
            "experiment_description": "optogenetic dissection of thalamocortical inputs to auditory cortex in slices",
            "location": "auditory cortex",
        },
    ),
    (
        "what counts as the institution if I'm visiting another lab? my home is Uppsala University but I recorded "
        "at the Karolinska",
        CRITICAL,
        {},
    ),
    # --- answers to a follow-up for the subject --------------------------------------------------
    (
        "subject id M3, female, 11 weeks, mouse",
        SUBJECT,
        {"subject_id": "M3", "sex": "F", "age": "P11W", "species": "Mus musculus"},
    ),
    (
        "Rat, male, 250 days, ID = LE-07",
        SUBJECT,
        {"species": "Rattus norvegicus", "sex": "M", "age": "P250D", "subject_id": "LE-07"},
    ),
    (
        "The monkey is called Zappa, he's a rhesus male, 10 years",
        SUBJECT,
        {"subject_id": "Zappa", "species": "Macaca mulatta", "sex": "M", "age": "P10Y"},
    ),
    (
        "Participant sub-014, woman, 27 y/o",
        SUBJECT,
        {"subject_id": "sub-014", "species": "Homo sapiens", "sex": "F", "age": "P27Y"},
    ),
    (
        "its a zebrafish larva, 5 dpf, ID fish03, we cant tell the sex at that age",
        SUBJECT,
        {"species": "Danio rerio", "age": "P5D", "subject_id": "fish03", "sex": "U"},
    ),
    (
        "her name is Luna, she's a 6-month-old marmoset",
        SUBJECT,
        {"subject_id": "Luna", "sex": "F", "age": "P6M", "species": "Callithrix jacchus"},
    ),
    (
        "Mouse: 4471 / sex: M / age: P56 / species: M. musculus",
        SUBJECT,
        {"subject_id": "4471", "sex": "M", "age": "P56D", "species": "Mus musculus"},
    ),
    (
        "a 6-month-old male C57 mouse, id CB-1",
        SUBJECT,
        {"age": "P6M", "sex": "M", "strain": "C57", "species": "Mus musculus", "subject_id": "CB-1"},
    ),
    (
        "subject is SNr-12 (male), adult mouse, I think around 3-4 months",
        SUBJECT,
        {"subject_id": "SNr-12", "sex": "M", "species": "Mus musculus", "age": "P3M/P4M"},
    ),
    (
        "ferret Pippin, male, P28",
        SUBJECT,
        {"species": "Mustela furo", "subject_id": "Pippin", "sex": "M", "age": "P28D"},
    ),
    (
        "rat, female, 2 years, id OLD-R3",
        SUBJECT,
        {"species": "Rattus norvegicus", "sex": "F", "age": "P2Y", "subject_id": "OLD-R3"},
    ),
    (
        "ID: fly-227 / female / D. melanogaster / 3 days",
        SUBJECT,
        {"subject_id": "fly-227", "sex": "F", "species": "Drosophila melanogaster", "age": "P3D"},
    ),
    (
        "species is Macaca mulatta, subject Ozzy, M, 7y",
        SUBJECT,
        {"species": "Macaca mulatta", "subject_id": "Ozzy", "sex": "M", "age": "P7Y"},
    ),
    (
        "The subject is an adult male cat, ID Felix, 3 years",
        SUBJECT,
        {"sex": "M", "species": "Felis catus", "subject_id": "Felix", "age": "P3Y"},
    ),
    (
        "Mouse. Female. 8 weeks. Subject: DR-21. DOB 2024-01-03",
        SUBJECT,
        {"species": "Mus musculus", "sex": "F", "age": "P8W", "subject_id": "DR-21", "date_of_birth": "2024-01-03"},
    ),
    (
        "The animal is a female rat (Wistar), number 17, she was 12 weeks old at recording",
        SUBJECT,
        {"sex": "F", "species": "Rattus norvegicus", "strain": "Wistar", "subject_id": "17", "age": "P12W"},
    ),
    (
        "zebra finch, male, bird ID pk44gr12, 95 dph",
        SUBJECT,
        {"species": "Taeniopygia guttata", "sex": "M", "subject_id": "pk44gr12", "age": "P95D"},
    ),
    (
        "human participant P12, man, 58 years old. he had the electrodes in for 9 days",
        SUBJECT,
        {"species": "Homo sapiens", "subject_id": "P12", "sex": "M", "age": "P58Y"},
    ),
    (
        "Rattus norvegicus ♀ #R-0912, sixteen weeks",
        SUBJECT,
        {"species": "Rattus norvegicus", "sex": "F", "subject_id": "R-0912", "age": "P16W"},
    ),
    (
        "Mongolian gerbil, id G-22, male, 1 year 2 months",
        SUBJECT,
        {"species": "Meriones unguiculatus", "subject_id": "G-22", "sex": "M", "age": "P1Y2M"},
    ),
    (
        "i dont have the age right now but it's mouse VG-8, male",
        SUBJECT,
        {"species": "Mus musculus", "subject_id": "VG-8", "sex": "M"},
    ),
    (
        "what is a subject id? the cage number or the ear tag?",
        SUBJECT,
        {},
    ),
    # --- answers to a single question ------------------------------------------------------------
    ("9 weeks", ("age",), {"age": "P9W"}),
    ("she was P45", ("age",), {"age": "P45D"}),
    ("18 months", ("age",), {"age": "P18M"}),
    ("3 yrs", ("age",), {"age": "P3Y"}),
    ("eight weeks old at the time of recording", ("age",), {"age": "P8W"}),
    ("I don't know exactly, somewhere between 60 and 90 days", ("age",), {"age": "P60D/P90D"}),
    ("I don't know, the animal came from another lab", ("age",), {}),
    ("mice", ("species",), {"species": "Mus musculus"}),
    ("rhesus macaque", ("species",), {"species": "Macaca mulatta"}),
    ("it's a Long-Evans rat", ("species",), {"species": "Rattus norvegicus", "strain": "Long-Evans"}),
    ("Homo sapiens", ("species",), {"species": "Homo sapiens"}),
    ("common marmoset (Callithrix jacchus)", ("species",), {"species": "Callithrix jacchus"}),
    ("female", ("sex",), {"sex": "F"}),
    ("m", ("sex",), {"sex": "M"}),
    ("we don't know, we never sexed them", ("sex",), {"sex": "U"}),
    ("M-0231", ("subject_id",), {"subject_id": "M-0231"}),
    ("it's the one called Bruno", ("subject_id",), {"subject_id": "Bruno"}),
    ("me, Laila Haddad", ("experimenter",), {"experimenter": "Haddad, Laila"}),
    ("Wen-Jie Huang and Priyanka Das", ("experimenter",), {"experimenter": "Huang, Wen-Jie; Das, Priyanka"}),
    ("University of Geneva", ("institution",), {"institution": "University of Geneva"}),
    ("the Champalimaud Foundation in Lisbon", ("institution",), {"institution": "Champalimaud Foundation"}),
    ("is that the university or the institute? we're both", ("institution",), {}),
    (
        "Optogenetic stimulation of PV cells while recording gamma oscillations in CA1",
        ("experiment_description",),
        {
            "experiment_description": "Optogenetic stimulation of PV cells while recording gamma oscillations in CA1",
            "location": "CA1",
        },
    ),
    (
        "just spontaneous activity, nothing fancy",
        ("experiment_description",),
        {"experiment_description": "spontaneous activity"},
    ),
    (
        "We wanted to see whether reward expectation changes how neurons in the striatum respond to the cue",
        ("experiment_description",),
        {
            "experiment_description": "whether reward expectation changes how neurons in the striatum respond to the cue",
            "location": "striatum",
        },
    ),
    ("what should I write here? just the technique?", ("experiment_description",), {}),
    ("2024-03-05 14:30", ("session_start_time",), {"session_start_time": "2024-03-05T14:30:00+00:00"}),
    (
        "5 March 2024, 2.30pm Lisbon time",
        ("session_start_time",),
        {"session_start_time": "2024-03-05T14:30:00+00:00", "timezone": "Europe/Lisbon"},
    ),
    ("born 12 Nov 2023", ("date_of_birth",), {"date_of_birth": "2023-11-12"}),
    ("C57BL/6J", ("strain",), {"strain": "C57BL/6J"}),
    ("do I need the strain? they're just wild type", ("strain",), {}),
    (
        "baseline for 10 min, then ketamine i.p., then 40 min recording",
        ("session_description",),
        {"session_description": "baseline for 10 min, then ketamine i.p., then 40 min recording"},
    ),
    (
        "grid cells, entorhinal cortex, navigation",
        ("keywords",),
        {"keywords": "grid cells, entorhinal cortex, navigation"},
    ),
    ("Hartmann lab", ("lab",), {"lab": "Hartmann lab"}),
    # --- messages sent with no question pending --------------------------------------------------
    ("sorry, the age is 10 weeks not 9", (), {"age": "P10W"}),
    ("actually it was a female", (), {"sex": "F"}),
    ("oh, she was 9 weeks old", (), {"age": "P9W"}),
    (
        "You missed the subject: it's mouse KX-4, male",
        (),
        {"subject_id": "KX-4", "species": "Mus musculus", "sex": "M"},
    ),
    (
        "Correction: institution should be University College London, not UCL",
        (),
        {"institution": "University College London"},
    ),
    ("Typo in my name, it's Jürgen with an umlaut: Jürgen Weber", (), {"experimenter": "Weber, Jürgen"}),
    ("also add my colleague Maya Singh as experimenter", (), {"experimenter": "Singh, Maya"}),
    (
        "one more thing: the session started at 09:12 on 2024-04-18, Helsinki time",
        (),
        {"session_start_time": "2024-04-18T09:12:00+03:00", "timezone": "Europe/Helsinki"},
    ),
    ("all times are Chicago time", (), {"timezone": "America/Chicago"}),
    ("timezone: Europe/Berlin", (), {"timezone": "Europe/Berlin"}),
    ("the strain was actually C57BL/6N, not 6J", (), {"strain": "C57BL/6N"}),
    ("oops, the subject id is AB-13, AB-12 was the day before", (), {"subject_id": "AB-13"}),
    ("Please add keywords: place cells, theta, Neuropixels", (), {"keywords": "place cells, theta, Neuropixels"}),
    ("she was born on 2 March 2023 btw", (), {"date_of_birth": "2023-03-02"}),
    ("forgot to say: the lab is the Nakamura lab", (), {"lab": "Nakamura lab"}),
    ("Recording location was left dorsal hippocampus, if you need it", (), {"location": "left dorsal hippocampus"}),
    ("no wait, it's a rat, not a mouse. Sorry, long day.", (), {"species": "Rattus norvegicus"}),
    ("The sex should be unknown, we never checked", (), {"sex": "U"}),
    ("Dr. Lee is not the experimenter, that's me, Sam Rivera", (), {"experimenter": "Rivera, Sam"}),
    ("I meant 2 years, not 2 months", (), {"age": "P2Y"}),
    ("It's Pacific time by the way, the rig is in Seattle", (), {"timezone": "America/Los_Angeles"}),
    ("session description: habituation day, no stimuli", (), {"session_description": "habituation day, no stimuli"}),
    ("the cell was c5, not c3", (), {"cell_id": "c5"}),
    ("hmm the age is P21 exactly, the 3 weeks I wrote was rounded", (), {"age": "P21D"}),
    (
        "also the recording was on 10 Feb 2024 at 13:05, I forgot to put it",
        (),
        {"session_start_time": "2024-02-10T13:05:00+00:00"},
    ),
    ("wait, the experimenter is wrong. It's Dr. Ingrid Solberg, not me", (), {"experimenter": "Solberg, Ingrid"}),
    (
        "One correction please: we are the Institute of Science and Technology Austria, not the university",
        (),
        {"institution": "Institute of Science and Technology Austria"},
    ),
    ("he was a male by the way, I forgot that", (), {"sex": "M"}),
    # asides, remarks, complaints, questions, thanks: nothing to store
    ("thanks!", (), {}),
    ("you keep asking me the same thing", (), {}),
    ("Also, the rig clock is 2 min fast", (), {}),
    ("why is it asking me this again?", (), {}),
    ("ok looks good 👍", (), {}),
    ("This is taking forever, the upload bar has been stuck at 97% for ten minutes", (), {}),
    ("Can I upload several sessions at once?", (), {}),
    ("hmm I'm not sure what you mean by experiment description", (), {}),
    ("I'll check with my PI and come back to you tomorrow", (), {}),
    ("is the data going to be public right away?", (), {}),
    ("lol the mouse bit me during surgery", (), {}),
    ("the spike sorting was done with Kilosort 4 if that matters", (), {}),
    ("wait, which file did you pick up? I uploaded two", (), {}),
    ("sorry my English is not so good", (), {}),
    ("great, thank you very much for help!!", (), {}),
    ("Does DANDI need the date of birth or is age enough?", (), {}),
    ("never mind", (), {}),
    ("can you show me the plan again?", (), {}),
    ("The file names are a mess, I know, sorry", (), {}),
    ("we had some noise on channel 12 during that session, 50 Hz hum", (), {}),
    ("is it ok that the animal was anesthetized?", (), {}),
    ("I already told you all of this in the first message", (), {}),
    ("hang on, getting the surgery notes", (), {}),
    ("Perfect 🙏", (), {}),
    ("How do I delete a session I uploaded by mistake?", (), {}),
    ("the stimulus timing is in the second TTL channel, just so you know", (), {}),
    ("My supervisor says the description is too short but I think it's fine", (), {}),
    ("No, that is wrong. Please don't store that.", (), {}),
    ("Why does it need the institution? It's already in my profile.", (), {}),
    ("ugh, the page logged me out and I had to start over", (), {}),
    ("Do I also have to convert the behaviour videos?", (), {}),
    ("Good question, let me think about it", (), {}),
    ("ok", (), {}),
]
