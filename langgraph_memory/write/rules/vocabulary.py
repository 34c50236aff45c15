"""The closed word lists the offline rules know: kin, pets, jobs, diets, topics, verbs.

A word outside these lists is not read ("I'm a sommelier" is no job here): to teach
the rules a word, add it to its list. Lists that end up inside a regular expression
are strings of alternatives ("dog|cat|..."); the others are sets or tables.

>>> "sister" in RELATIONS.split("|"), "dog" in PET_SET
(True, True)
"""

from __future__ import annotations

__all__ = [
    "DIETS",
    "HABIT_GERUNDS",
    "JOBS",
    "NOT_NAMES",
    "PETS",
    "PET_SET",
    "PLAN_GERUNDS",
    "PLAN_NEEDS_DATE",
    "PLAN_VERBS",
    "RELATIONS",
    "THIRD_PERSON",
    "TOPICS",
    "VAGUE",
]

#: The people a user can say "my ..." of; facts about them stay attached to them.
RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|boyfriend|girlfriend|"
    "fiance|fiancee|son|daughter|friend|best friend|boss|manager|colleague|coworker|cousin|"
    "aunt|uncle|grandmother|grandfather|grandma|grandpa|niece|nephew|roommate|flatmate|"
    "neighbour|neighbor|stepmother|stepfather|stepson|stepdaughter"
)
#: Pets a user can have and name.
PETS = "dog|cat|puppy|kitten|parrot|rabbit|hamster|guinea pig|horse|bird|turtle|tortoise|fish"
PET_SET = frozenset(PETS.split("|"))
#: "I'm a teacher" is read as a job only for these nouns: "I'm a big fan" is not one.
JOBS = (
    "teacher|nurse|doctor|physician|surgeon|engineer|developer|programmer|lawyer|accountant|"
    "chef|cook|designer|pharmacist|dentist|architect|scientist|researcher|professor|manager|"
    "writer|journalist|farmer|pilot|electrician|plumber|mechanic|consultant|analyst|"
    "firefighter|police officer|paramedic|therapist|psychologist|photographer|artist|"
    "musician|actor|actress|cashier|waiter|waitress|driver|carpenter|veterinarian|vet|"
    "librarian|translator|economist|banker|editor|entrepreneur"
)
DIETS = (
    "vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten-free|gluten free|dairy-free|"
    "dairy free|lacto-vegetarian|ovo-vegetarian|flexitarian|teetotal|teetotaler|teetotaller"
)
#: "I prefer X": words that name a known topic, so that a new choice on the same
#: topic replaces the old one ("metric" then "imperial" is one preference).
TOPICS: dict[str, tuple[str, str]] = {
    "metric": ("units", "metric"),
    "imperial": ("units", "imperial"),
    "celsius": ("temperature", "celsius"),
    "centigrade": ("temperature", "celsius"),
    "fahrenheit": ("temperature", "fahrenheit"),
    "kilometres": ("distance", "km"),
    "kilometers": ("distance", "km"),
    "km": ("distance", "km"),
    "miles": ("distance", "miles"),
    "24-hour": ("time format", "24-hour"),
    "24 hour": ("time format", "24-hour"),
    "12-hour": ("time format", "12-hour"),
    "12 hour": ("time format", "12-hour"),
    "dark mode": ("theme", "dark"),
    "dark theme": ("theme", "dark"),
    "light mode": ("theme", "light"),
    "light theme": ("theme", "light"),
    "window seat": ("seat", "window"),
    "window seats": ("seat", "window"),
    "aisle seat": ("seat", "aisle"),
    "aisle seats": ("seat", "aisle"),
    "tea": ("hot drink", "tea"),
    "coffee": ("hot drink", "coffee"),
    "short answers": ("answer length", "short"),
    "brief answers": ("answer length", "short"),
    "concise answers": ("answer length", "short"),
    "detailed answers": ("answer length", "detailed"),
    "long answers": ("answer length", "detailed"),
    "email": ("contact", "email"),
    "phone calls": ("contact", "phone"),
    "text messages": ("contact", "text"),
}
#: Verbs a plan may have, by gerund. Others ("I might be late") are not plans.
PLAN_GERUNDS = {
    "moving": "move", "relocating": "relocate", "visiting": "visit", "travelling": "travel",
    "traveling": "travel", "flying": "fly", "going": "go", "starting": "start",
    "quitting": "quit", "leaving": "leave", "joining": "join", "learning": "learn",
    "studying": "study", "buying": "buy", "selling": "sell", "retiring": "retire",
    "adopting": "adopt", "changing": "change", "switching": "switch", "marrying": "marry",
    "running": "run", "taking": "take", "opening": "open", "launching": "launch",
    "applying": "apply", "getting": "get",
}  # fmt: skip
PLAN_VERBS = frozenset(PLAN_GERUNDS.values())
#: Verbs too vague to be a plan without a date ("I'm going to go" is not one).
PLAN_NEEDS_DATE = frozenset({"go", "take", "start", "run", "get", "open", "change", "switch"})
#: "I stopped eating meat" is a habit given up; other gerunds after "stopped" are not read.
HABIT_GERUNDS = {"eating": "eat", "drinking": "drink", "smoking": "smoke"}
#: The third person of the verbs of habits and likes ("I eat" -> "User eats").
THIRD_PERSON = {
    "eat": "eats",
    "drink": "drinks",
    "smoke": "smokes",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
}
#: Values that are not a place, an employer or a liked thing but a pronoun.
VAGUE = frozenset({
    "it", "that", "this", "them", "those", "these", "there", "here", "him", "her", "you", "me",
    "so", "too", "to", "one", "what",
})  # fmt: skip
#: "I am Alice" is a name, "I am Tired" is not: first words never read as a bare name.
NOT_NAMES = frozenset({
    "fine", "good", "ok", "okay", "sure", "sorry", "back", "here", "ready", "tired", "happy",
    "glad", "hungry", "busy", "new", "sick", "home", "done", "lost", "bored", "curious",
    "confused", "interested", "excited", "worried", "not", "just", "also", "so",
})  # fmt: skip
