//! SDK mode (`--input-format stream-json --output-format stream-json`): the Agent SDKs
//! drive rein over stdin/stdout. The loop is rein-sdk's; this file gives it the flags,
//! the pipes and the binary's way of building the session, and turns its end into the
//! exit code (1 right after an error result).

use std::process::ExitCode;

use rein_sdk::{SdkEnd, SdkError, SdkFlags};

use crate::args::Args;

pub(crate) fn run(args: &Args, runtime: tokio::runtime::Runtime) -> anyhow::Result<ExitCode> {
    let options = args.options();
    let setup = crate::process_env::resolve(&options)?;
    let flags = SdkFlags {
        permission_prompt_tool: args.permission_prompt_tool.clone(),
        include_partial_messages: args.include_partial_messages,
        replay_user_messages: args.replay_user_messages,
    };
    let build: rein_sdk::BuildSession<'_> =
        Box::new(|builder| crate::engine::build(builder).map_err(|e| SdkError::Build(crate::one_line(&e))));
    let end = runtime.block_on(rein_sdk::run(
        &options,
        setup,
        &flags,
        tokio::io::stdin(),
        Box::new(std::io::stdout()),
        build,
    ))?;
    Ok(match end {
        SdkEnd::Done => ExitCode::SUCCESS,
        SdkEnd::LastTurnFailed | SdkEnd::InitializeFailed => ExitCode::FAILURE,
    })
}
