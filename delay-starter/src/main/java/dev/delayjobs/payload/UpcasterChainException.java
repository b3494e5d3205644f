package dev.delayjobs.payload;

/** A handler's payload type whose upcaster chain has a mistake (a missing step, say): refused at startup. */
public final class UpcasterChainException extends RuntimeException {

    private final String action;

    public UpcasterChainException(String where, String mistake) {
        super(where + ": " + mistake + ". A job published at an older version would go to the dead set.");
        this.action = "Declare one PayloadUpcaster bean per step, from each version still stored in Redis up to the type's "
                + "@PayloadVersion, with no gap. A version no job is stored at any more may lose its upcaster, but then "
                + "so must every older one (see docs/payload-versions.md, retiring a version).";
    }

    /** What to do, for the failure analysis. */
    public String action() {
        return action;
    }
}
