package schema

import (
	"encoding/json"
	"fmt"
)

// Lead is a study's summary: one paragraph, or several short points.
type Lead []Text

// UnmarshalJSON reads one text or a list of them.
func (l *Lead) UnmarshalJSON(b []byte) error {
	var one Text
	if err := json.Unmarshal(b, &one); err == nil {
		*l = Lead{one}
		return nil
	}
	var many []Text
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("summary is a text or a list of texts, not %s", b)
	}
	*l = many
	return nil
}

// MarshalJSON writes one text as itself, several as a list.
func (l Lead) MarshalJSON() ([]byte, error) {
	if len(l) == 1 {
		return json.Marshal(l[0])
	}
	return json.Marshal([]Text(l))
}
