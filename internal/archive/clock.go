package archive

import "time"

// nowFunc returns the current time; plausibility checks use it to drop
// captures dated in the future. Tests may replace it.
var nowFunc = time.Now
