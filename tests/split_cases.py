"""Tricky English sentence boundaries: the test set the sentence splitter was chosen on.

Each case is a line and the sentences a reader finds in it. `tests/decode/test_segment.py` checks
the chosen splitter on them and `experiments/bench_splitters.py` scores every candidate on them.
"""

from __future__ import annotations

CASES: list[tuple[str, list[str]]] = [
    ("Mr. Smith went to Washington. He arrived on Monday.",
     ["Mr. Smith went to Washington.", "He arrived on Monday."]),
    ("Mrs. Jones and Ms. Lee met Prof. Davis.", ["Mrs. Jones and Ms. Lee met Prof. Davis."]),
    ("Dr. Brown lives on Main St. near the park.", ["Dr. Brown lives on Main St. near the park."]),
    ("Mr. and Mrs. Smith are here.", ["Mr. and Mrs. Smith are here."]),
    ("I like fruit, e.g. apples and pears. Do you?",
     ["I like fruit, e.g. apples and pears.", "Do you?"]),
    ("I have 2.5 kg of apples, i.e. a lot. Want some?",
     ["I have 2.5 kg of apples, i.e. a lot.", "Want some?"]),
    ("The price is 3.50 dollars. That is cheap.", ["The price is 3.50 dollars.", "That is cheap."]),
    ("Version 2.0 is out. Get it now!", ["Version 2.0 is out.", "Get it now!"]),
    ("She was born in 1990. She is 36.", ["She was born in 1990.", "She is 36."]),
    ("The meeting is at 10 a.m. tomorrow. Don't be late.",
     ["The meeting is at 10 a.m. tomorrow.", "Don't be late."]),
    ("I live in the U.S. and Tom lives in Canada.",
     ["I live in the U.S. and Tom lives in Canada."]),
    ("The U.N. met today. Nothing happened.", ["The U.N. met today.", "Nothing happened."]),
    ("J. K. Rowling wrote it. I read it.", ["J. K. Rowling wrote it.", "I read it."]),
    ("Wait... what did you say? I didn't hear.", ["Wait... what did you say?", "I didn't hear."]),
    ("I waited... and waited. Nobody came.", ["I waited... and waited.", "Nobody came."]),
    ("I don't know... Maybe tomorrow.", ["I don't know...", "Maybe tomorrow."]),
    ("Really?! You did that? Wow.", ["Really?!", "You did that?", "Wow."]),
    ('"Come here!" she said. "Now."', ['"Come here!" she said.', '"Now."']),
    ('He said, "I am tired." Then he left.', ['He said, "I am tired."', "Then he left."]),
    ("Tom asked: 'Are you coming?' Mary said no.",
     ["Tom asked: 'Are you coming?'", "Mary said no."]),
    ("(This is in brackets.) This is not.", ["(This is in brackets.)", "This is not."]),
    ("Where is the train station? I need to go to Boston!",
     ["Where is the train station?", "I need to go to Boston!"]),
    ("It is 5 o'clock. Let's go.", ["It is 5 o'clock.", "Let's go."]),
    ("one sentence without punctuation", ["one sentence without punctuation"]),
    ("hello. how are you", ["hello.", "how are you"]),
    ("i'm tired. i'm going to bed", ["i'm tired.", "i'm going to bed"]),
    ("Tom is 6 ft. tall. Mary is not.", ["Tom is 6 ft. tall.", "Mary is not."]),
    ("Call me at 555-1234. Thanks!", ["Call me at 555-1234.", "Thanks!"]),
    ("It weighs 1,000.5 kg. That's heavy.", ["It weighs 1,000.5 kg.", "That's heavy."]),
    ("Tom loves Mary. Mary loves John. John loves nobody. Nobody is happy.",
     ["Tom loves Mary.", "Mary loves John.", "John loves nobody.", "Nobody is happy."]),
    ("I met him at 3 p.m. He was late.", ["I met him at 3 p.m.", "He was late."]),
    ("Hi!  How are you?", ["Hi!", "How are you?"]),
    ('Tom said: "Stop." Mary stopped.', ['Tom said: "Stop."', "Mary stopped."]),
    ("It's 9:30 a.m. in Tokyo.", ["It's 9:30 a.m. in Tokyo."]),
    ("He has a Ph.D. in physics. So what?", ["He has a Ph.D. in physics.", "So what?"]),
]  # fmt: skip
