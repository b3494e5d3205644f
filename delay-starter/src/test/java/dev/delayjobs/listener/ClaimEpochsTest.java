package dev.delayjobs.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.Test;

/** The epochs a claimer names: always above what it used or saw, and none after the stop fence. */
class ClaimEpochsTest {

    @Test
    void eachHandBackNamesAnEpochAboveEveryOneUsedOrSeenAndTheStopFenceIsAboveThemAll() {
        ClaimEpochs epochs = new ClaimEpochs();
        assertThat(epochs.current()).as("no claim before the first hand-back").isZero();

        long first = epochs.next();
        epochs.claimWith(first);
        assertThat(epochs.current()).isEqualTo(1);

        // the reply showed a fence an earlier start under this instance id left
        epochs.fenceSeen(7);
        assertThat(epochs.next()).isEqualTo(8);
        epochs.fenceSeen(3);
        assertThat(epochs.next()).as("a lower fence seen changes nothing").isEqualTo(9);

        assertThat(epochs.stop()).as("above every epoch named, 9 included").isEqualTo(10);
        assertThatIllegalStateException().isThrownBy(epochs::next);
    }
}
