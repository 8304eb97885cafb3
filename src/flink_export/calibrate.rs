//! (filled in next)
use crate::scenario::ScenarioError;
pub fn cli_calibrate(_args: &[String]) -> Result<(), ScenarioError> {
    Ok(())
}
pub fn cli_fidelity(_args: &[String]) -> Result<(), ScenarioError> {
    Ok(())
}
